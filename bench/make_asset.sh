#!/bin/sh
# Regenerates the simulator's pre-encoded media loop (simulator/media/assets/) with ffmpeg.
#
# 8 s is the shortest loop where 1/30 s video frames, 1024/48000 s AAC frames and the 1 s GOP all end
# together (240 frames, 375 AAC frames, 8 GOPs), so the simulator can repeat it with continuous
# timestamps. H.264 without B-frames (decode order = presentation order), one slice per frame, a
# keyframe every 30 frames; AAC-LC 48 kHz stereo. Stored as raw Annex B and ADTS elementary streams,
# which simulator/media/asset.py parses in pure Python at run time (no ffmpeg needed then).
set -eu
out="$(dirname "$0")/../simulator/media/assets"
mkdir -p "$out"
ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "testsrc2=size=640x360:rate=30" \
  -frames:v 240 -an \
  -c:v libx264 -threads 1 -preset medium -profile:v main -pix_fmt yuv420p \
  -bf 0 -g 30 -keyint_min 30 -sc_threshold 0 -b:v 180k -maxrate 240k -bufsize 480k \
  -x264-params "scenecut=0" \
  -f h264 "$out/loop.h264"
ffmpeg -hide_banner -loglevel error -y \
  -f lavfi -i "sine=frequency=440:beep_factor=4:sample_rate=48000" \
  -t 8.1 -ac 2 -c:a aac -profile:a aac_low -b:a 64k -f adts "$out/loop.aac"
ls -l "$out"
