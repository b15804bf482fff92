// Opens a calltrace flame graph SVG in headless Chromium and uses it:
// clicks the first frame named FRAME (it must then span the full width),
// searches for FRAME (the "Matched" share must appear), saves a
// screenshot.  Exit 0 when all of it worked without a script error.
// usage: node flamegraph_click.js FILE.svg FRAME PNG
const path = require('path');
const { withPage } = require('./chromium');

const [svg, frame, png] = process.argv.slice(2);

withPage({ viewport: { width: 1200, height: 600 } }, async (page, failed) => {
  await page.goto('file://' + path.resolve(svg));
  const sel = `g.f[data-n="${frame}"]`;
  const full = await page.evaluate(
    () => +document.documentElement.getAttribute('data-w'));
  await page.click(sel, { position: { x: 2, y: 5 } });
  const w = await page.evaluate(
    s => +document.querySelector(s + ' rect').getAttribute('width'), sel);
  if (Math.abs(w - full) > 0.01)
    failed.push(`after the click ${frame} is ${w} px wide, not ${full}`);
  const hidden = await page.evaluate(
    () => document.querySelectorAll('g.f.hide').length);
  await page.screenshot({ path: png.replace(/\.png$/, '-zoomed.png') });
  await page.keyboard.press('Escape');
  await page.evaluate(f => { window.prompt = () => f; }, frame);
  await page.click('#search');
  const matched = await page.evaluate(
    () => document.getElementById('matched').textContent);
  if (!/^Matched: [0-9.]+%$/.test(matched))
    failed.push(`search shows '${matched}'`);
  await page.screenshot({ path: png });
  console.log(`zoomed: ${hidden} frames hidden; ${matched}`);
});
