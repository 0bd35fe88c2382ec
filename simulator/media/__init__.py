"""The media side: the pre-encoded asset, fMP4 / MPEG-TS packaging, playlists, markers and ID3. No HTTP."""
