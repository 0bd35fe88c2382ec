// Reads the simulator's playlists and MPEG-TS segments with a JavaScript player's own parsers and prints
// what they saw, as JSON, for the Python tests to compare with the media (tests/media/test_media_js_parsers.py).
//
// stdin:  {"playlists": {name: text}, "ts": {name: base64}}
// stdout: {"playlists": {name: {manifest, warnings}}, "ts": {name: {video: {start, end}, audio: {start, end}}}}
//   manifest: what m3u8-parser's Parser made of the text (segments with parts and cue tags, dateRanges,
//   preloadSegment, partTargetDuration, ...); warnings: every 'warn' event it raised.
//   ts timings: from mux.js's Transmuxer with the original timestamps kept, in 90 kHz ticks (start of
//   the first frame, end of the last frame), per track.
import { Parser } from 'm3u8-parser';
import muxjs from 'mux.js';

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on('data', (chunk) => chunks.push(chunk));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

function parsePlaylist(text) {
  const parser = new Parser();
  const warnings = [];
  parser.on('warn', (event) => warnings.push(event.message));
  parser.push(text);
  parser.end();
  return { manifest: parser.manifest, warnings };
}

function tsTimings(bytes) {
  const transmuxer = new muxjs.mp4.Transmuxer({ keepOriginalTimestamps: true, remux: false });
  const timings = {};
  transmuxer.on('videoTimingInfo', (info) => { timings.video = info; });
  transmuxer.on('audioTimingInfo', (info) => { timings.audio = info; });
  transmuxer.push(new Uint8Array(bytes));
  transmuxer.flush();
  return timings;
}

const job = JSON.parse(await readStdin());
const out = { playlists: {}, ts: {} };
for (const [name, text] of Object.entries(job.playlists ?? {})) {
  out.playlists[name] = parsePlaylist(text);
}
for (const [name, encoded] of Object.entries(job.ts ?? {})) {
  out.ts[name] = tsTimings(Buffer.from(encoded, 'base64'));
}
process.stdout.write(JSON.stringify(out, (key, value) => (value instanceof Date ? value.toISOString() : value)));
