// Drives a real headless Chromium through the board of `git beads serve` with
// playwright-core, and prints what it saw as one JSON document on stdout.
//
// node board.js PLAYWRIGHT_DIR URL BEAD_TO_CLAIM SESSION_ID AGENT SHOTS_DIR EPIC
// The working directory is the repository; `git beads` is on PATH.
"use strict";
const { execFileSync } = require("child_process");
const path = require("path");
const [pwDir, url, claimId, sessionId, agent, shots, epicId] = process.argv.slice(2);
const { chromium } = require(pwDir);

const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

async function columns(page) {
  const seen = {};
  for (const key of ["epics", "ready", "in_progress", "blocked", "closed"]) {
    seen[key] = await page.$$eval(`#col-${key} .card`, (cards) => cards.map((c) => c.dataset.id));
  }
  return seen;
}

(async () => {
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });
  const out = { dialogs: [] };
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
    page.on("dialog", async (d) => { out.dialogs.push(d.message()); await d.dismiss(); });
    await page.goto(url);
    // Wait until the live connection is open, so a write is seen from now on.
    await page.waitForSelector("#live.on", { timeout: 10000 });
    out.columns = await columns(page);
    out.xss_text = await page.locator(".card .title", { hasText: "<img src=x onerror=alert(1)>" }).count();
    out.injected_images = await page.locator("main img").count();
    await page.screenshot({ path: path.join(shots, "board.png"), fullPage: false });

    // A write from the CLI shows on the open page without a reload.
    const marker = await page.evaluate(() => { window.__notReloaded = true; return true; });
    const created = execFileSync("git", ["beads", "q", "Written from the command line"]).toString().trim();
    const written = Date.now();
    await page.waitForSelector(`#col-ready .card[data-id="${created}"]`, { timeout: 1000 });
    out.live = {
      created,
      ms: Date.now() - written,
      same_page: marker && (await page.evaluate(() => window.__notReloaded === true)),
    };

    // A post without the CSRF token is refused, even from the board's own origin.
    out.no_csrf_status = await page.evaluate(async (id) => {
      const r = await fetch(`/bead/${id}/claim`, { method: "POST", body: new URLSearchParams({ go: "claim" }) });
      return r.status;
    }, claimId);

    // A claim made on the page.
    await page.goto(new URL(`/bead/${claimId}`, url).href);
    await Promise.all([page.waitForNavigation(), page.click("button[value=claim]")]);
    out.after_claim = await page.locator("#bead .fields").innerText();

    // An epic holds work: its page offers no claim.
    await page.goto(new URL(`/bead/${epicId}`, url).href);
    out.epic_claims = await page.locator("button[value=claim]").count();

    await page.goto(new URL("/agents", url).href);
    out.agents_text = await page.locator(`#agents`).innerText();
    // Each budget bar's text stays inside the bar, whole.
    out.bar_labels_inside = await page.$$eval(".bar", (bars) => bars.map((bar) => {
      const label = bar.querySelector("span");
      const b = bar.getBoundingClientRect();
      const l = label.getBoundingClientRect();
      return l.left >= b.left && l.right <= b.right && l.top >= b.top - 0.5 && l.bottom <= b.bottom + 0.5
        && label.scrollWidth <= label.clientWidth;
    }));
    // A live update may replace the card while it is being shot: shoot it again.
    for (let tries = 1; ; tries++) {
      try {
        await page.locator(`.agent`).first().screenshot({ path: path.join(shots, "agent.png") });
        break;
      } catch (e) {
        if (tries >= 5 || !String(e).includes("not attached")) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }

    await page.goto(new URL(`/session/${sessionId}`, url).href);
    out.session_swaps = await page.locator("svg.plot line.swap").count();
    // Each model swap's label lies inside the plot, unclipped.
    out.swap_labels_inside = await page.$$eval("svg.plot text.swap", (labels) => labels.map((t) => {
      const box = t.getBBox();
      const width = t.ownerSVGElement.viewBox.baseVal.width;
      return box.x >= 0 && box.x + box.width <= width;
    }));
    out.session_points = (await page.getAttribute("svg.plot polyline.tokens", "points")).split(" ").length;
    await page.screenshot({ path: path.join(shots, "session.png"), fullPage: true });
    out.agent = agent;
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out) + "\n");
})().catch((e) => { console.error(e); process.exit(1); });
