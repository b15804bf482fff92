// Opens a profile in speedscope inside headless Chromium and saves a
// screenshot.  Exit 0 when speedscope imported it (a profile view is shown,
// no import error on the page or in the console), 1 otherwise.
// usage: node speedscope_open.js SPEEDSCOPE_RELEASE_DIR PROFILE PNG [strict]
// strict: speedscope's warnings that it repaired a stack (an E that does
// not match its B, a frame left open) fail too.
// The page and the profile are served by request interception on a made-up
// origin, so no server or network is involved.
const fs = require('fs');
const path = require('path');
const { withPage } = require('./chromium');

const [releaseDir, profile, png, strict] = process.argv.slice(2);
const repairTexts = ['Tried to end', 'was still open at end of profile'];
const origin = 'http://speedscope.invalid';
const types = { '.html': 'text/html', '.js': 'text/javascript',
                '.css': 'text/css', '.wasm': 'application/wasm' };
const errorTexts = ['Something went wrong', 'Unrecognized format',
                    'Failed to load', 'Could not find'];

withPage({ viewport: { width: 1200, height: 700 },
           args: ['--enable-unsafe-swiftshader', '--use-angle=swiftshader'] },
         async (page, failed) => {
  page.on('dialog', d => {
    failed.push('dialog: ' + d.message());
    page.evaluate(() => { window.__ctDialog = true; }).catch(() => {});
    d.dismiss().catch(() => {});
  });
  page.on('console', m => {
    const t = m.text();
    if (m.type() === 'error' || errorTexts.some(s => t.includes(s)) ||
        (strict && repairTexts.some(s => t.includes(s))))
      failed.push('console ' + m.type() + ': ' + t);
  });
  await page.route(origin + '/**', route => {
    const u = new URL(route.request().url());
    const file = u.pathname === '/profile' ? profile
               : path.join(releaseDir, decodeURIComponent(u.pathname));
    if (!fs.existsSync(file))
      return route.fulfill({ status: 404, body: 'not found' });
    route.fulfill({ status: 200, body: fs.readFileSync(file),
                    contentType: types[path.extname(file)] ||
                                 'application/octet-stream' });
  });
  await page.goto(origin + '/index.html#profileURL=' +
                  encodeURIComponent(origin + '/profile'));
  // speedscope shows its view switcher ("Time Order") once a profile is in
  await page.waitForFunction(
    t => document.body.innerText.includes('Time Order') ||
         t.some(s => document.body.innerText.includes(s)) ||
         window.__ctDialog,
    errorTexts, { timeout: 30000 }).catch(e => {
      if (!failed.length) throw e;
    });
  await page.waitForTimeout(1500);
  const text = await page.evaluate(() => document.body.innerText);
  for (const s of errorTexts)
    if (text.includes(s))
      failed.push('page says: ' + s);
  await page.screenshot({ path: png });
  console.log(text.split('\n').slice(0, 8).join(' | '));
});
