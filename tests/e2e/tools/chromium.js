// Headless Chromium for the browser tests (flamegraph_click.js,
// speedscope_open.js): one launch with a throw-away profile, so a test
// never depends on or leaves behind a browser profile of the user's.
// withPage(options, use) opens a page, runs `await use(page, failed)`,
// then closes the browser and exits 1 with the messages pushed to
// `failed` (or the error use threw), else returns.
// options: { viewport, args (added to the common ones) }
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require('playwright-core');

const commonArgs = ['--no-sandbox', '--disable-gpu', '--disable-quic',
                    '--no-first-run', '--disable-background-networking',
                    '--disable-component-update', '--disable-sync'];

async function withPage(options, use) {
  const userDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-chr-'));
  const browser = await chromium.launchPersistentContext(userDir, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    viewport: options.viewport,
    args: commonArgs.concat(options.args || []),
  });
  const failed = [];
  try {
    const page = browser.pages()[0] || await browser.newPage();
    page.on('pageerror', e => failed.push('page error: ' + e.message));
    await use(page, failed);
  } catch (e) {
    failed.push(String(e));
  } finally {
    await browser.close();
    fs.rmSync(userDir, { recursive: true, force: true });
  }
  if (failed.length) {
    console.error(failed.join('\n'));
    process.exit(1);
  }
}

module.exports = { withPage };
