// hls.js 1.7.4 playing the simulator's LL-HLS in headless Chromium, from a page on another origin, with a
// header of its own on every request (so every request is preflighted). Prints what the player saw as JSON.
//
// usage: node check_playback.mjs PAGE_URL PLAYLIST_URL SECONDS
//   PAGE_URL serves page.html and hls.min.js (browser_check.py does); PLAYLIST_URL is llhls.m3u8.
import puppeteer from 'puppeteer-core';

const [pageUrl, playlistUrl, seconds] = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--disable-gpu'],
});
try {
  const page = await browser.newPage();
  const consoleErrors = [];
  page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
  await page.goto(pageUrl);
  const seen = await page.evaluate(async (url, playSeconds) => {
    const Hls = window.Hls;
    const video = document.querySelector('video');
    const seen = {
      supported: Hls.isSupported(), manifest: false, buffered: { main: 0, audio: 0 }, errors: [],
      id3: [], dateRanges: [], played: 0, latency: null,
    };
    let startedAt = null;
    video.addEventListener('playing', () => { if (startedAt === null) startedAt = video.currentTime; });
    const hls = new Hls({
      lowLatencyMode: true,
      xhrSetup: (xhr) => xhr.setRequestHeader('X-Player-Token', 'not-a-secret'),
    });
    hls.on(Hls.Events.MANIFEST_PARSED, () => { seen.manifest = true; video.play().catch(() => {}); });
    hls.on(Hls.Events.FRAG_BUFFERED, (_, data) => { seen.buffered[data.frag.type] = (seen.buffered[data.frag.type] ?? 0) + 1; });
    hls.on(Hls.Events.ERROR, (_, data) => { seen.errors.push({ fatal: data.fatal, details: data.details }); });
    hls.on(Hls.Events.FRAG_PARSING_METADATA, (_, data) => {
      for (const sample of data.samples) seen.id3.push(Array.from(sample.data.slice(0, 3)));
    });
    hls.on(Hls.Events.LEVEL_UPDATED, (_, data) => {
      for (const id of Object.keys(data.details.dateRanges ?? {})) {
        if (!seen.dateRanges.includes(id)) seen.dateRanges.push(id);
      }
    });
    hls.loadSource(url);
    hls.attachMedia(video);
    await new Promise((resolve) => setTimeout(resolve, playSeconds * 1000));
    seen.played = startedAt === null ? 0 : video.currentTime - startedAt;
    seen.latency = hls.latency;
    hls.destroy();
    return seen;
  }, playlistUrl, Number(seconds));
  seen.consoleErrors = consoleErrors;
  process.stdout.write(JSON.stringify(seen));
} finally {
  await browser.close();
}
