// gg console in a real browser: a real `gg console` process serving real transcripts, a catalog and a study folder,
// driven by headless Chromium (the system's, else the one @sparticuz/chromium ships: test/browser.ts). One browser for
// the whole file.
// Each page's screenshot is written to docs/console/ for the README.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { CAPABILITIES } from "../../bindings/capabilities.ts";
import { parseConfiguration } from "../../bindings/config.ts";
import { CAPABILITY_GROUPS } from "../../console/api.ts";
import { runCost } from "../../agent/pricing.ts";
import type { AgentReport } from "../../agent/loop.ts";
import { APPROVALS, FAILED_CHECK, FAILED_DIFF, HOSTILE_SKIPPED, MODELS, RETRY, writeCatalog, writeHostileRuns, writeLongRun, writeRuns, writeStudy, writeTurnsRun, XSS } from "./fixtures.ts";
import { launchChromium } from "../browser.ts";
import { GG, type RunningConsole, startGgConsole } from "./process.ts";

/** How long a page may take to show what is awaited: the machine may be loaded (API answers read transcripts). */
const SLOW = { timeout: 30_000 };
/** The runs listed: runs/ (code, nested/vision, xss, long, turns, empty), hostile/good, and the study's two trials. */
const ROWS = 9;
const ROOT = join(import.meta.dirname, "..", "..");
const bin = GG;
/** Where the pages' screenshots go: docs/console/ (committed, shown by the README) when GG_CONSOLE_SCREENSHOTS=1, else a temp folder. */
const SHOTS = process.env.GG_CONSOLE_SCREENSHOTS === "1" ? join(ROOT, "docs", "console") : join(tmpdir(), "gg-console-screenshots");

let dir: string;
let gg: RunningConsole;
let url: string;
let base: string;
let token: string;
let browser: Browser;
let page: Page;

/** A raw request (a GET without `body`), so the Host and Origin headers are exactly the ones given. */
function get(path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    const sent = request({ host: "127.0.0.1", port, path, method: body === undefined ? "GET" : "POST", headers: { host: `127.0.0.1:${port}`, ...headers } }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on("error", reject);
    sent.end(body);
  });
}

const shoot = async (name: string): Promise<void> => {
  await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
};

/** Opens a route of the page and waits for its heading (a run's comes with the API's answer: a loaded machine takes its time). */
async function open(route: string, heading: string | RegExp): Promise<void> {
  await page.goto(`${base}/#/${route}`);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor(SLOW);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gg-console-"));
  mkdirSync(join(dir, "runs"));
  mkdirSync(SHOTS, { recursive: true });
  await writeRuns(join(dir, "runs"));
  writeLongRun(join(dir, "runs", "long.jsonl"), 5000);
  writeCatalog(join(dir, "catalog.json"));
  writeStudy(join(dir, "study"), join(dir, "runs"));
  writeHostileRuns(join(dir, "hostile"));
  writeTurnsRun(join(dir, "runs", "turns.jsonl"), join(dir, "runs", "empty.jsonl"));
  // Paths relative to the console's directory, as a person types them (and the screenshots show them).
  gg = await startGgConsole(dir, ["--config", "gg.json", "--catalog", "catalog.json", "--runs", "runs", "--runs", "hostile", "--study", "study"]);
  ({ url, base, token } = gg);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  // A locator that finds nothing fails the test, naming itself, well within the test's own timeout.
  page.setDefaultTimeout(10_000);
  // The first visit, with the token: the page keeps it in the tab's sessionStorage.
  await page.goto(url);
  await page.getByRole("heading", { level: 1, name: "Configuration" }).waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  gg?.child.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

describe("gg console's guard", () => {
  test("prints a URL on 127.0.0.1 with a token", () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
  });

  test("the API needs the token in its header (none is 401, a wrong one 403); the page's files hold no data and need none", async () => {
    expect((await get("/api/runs")).status).toBe(401);
    expect((await get("/api/runs", { "x-gg-token": "wrong" })).status).toBe(403);
    // Neither the query nor a cookie is a credential for the API: only the header, which a browser never sends by itself.
    expect((await get(`/api/runs?token=${token}`)).status).toBe(401);
    expect((await get("/api/runs", { cookie: `gg-console-${gg.port}=${token}` })).status).toBe(401);
    expect((await get("/api/runs", { "x-gg-token": token })).status).toBe(200);
    for (const path of ["/", "/app.js", "/app.css"]) expect((await get(path)).status).toBe(200);
    // A token in the page's URL must be the right one: a stale URL is told at once.
    expect((await get("/?token=wrong")).status).toBe(403);
    expect((await get(`/?token=${token}`)).status).toBe(200);
  });

  test("a foreign Host is refused with the right token (DNS rebinding), and an API request from a foreign or null Origin, GET included", async () => {
    const auth = { "x-gg-token": token };
    expect((await get("/", { host: "attacker.example:80" })).status).toBe(421);
    expect((await get("/api/runs", { ...auth, host: `evil.example:${gg.port}` })).status).toBe(421);
    expect((await get("/api/runs", { ...auth, origin: "http://attacker.example" })).status).toBe(403);
    expect((await get("/api/runs", { ...auth, origin: "null" })).status).toBe(403);
    expect((await get("/api/runs", { ...auth, origin: "http://127.0.0.1:1" })).status).toBe(403);
    expect((await get("/api/config", { ...auth, origin: base })).status).toBe(200);
  });

  test("the page keeps the token in its tab: no cookie holds it, the address bar drops it, and a reload needs no token", async () => {
    await page.goto(url);
    await page.getByRole("heading", { level: 1, name: "Configuration" }).waitFor();
    expect(page.url()).toBe(`${base}/`);
    expect(await page.context().cookies()).toEqual([]);
    // A reload asks the server again, the token coming from the tab's sessionStorage; the runs listed show the API
    // answered. (The hash is set in the page, not by a goto: a same-document navigation right after a reload can
    // wait on a load that never comes.)
    await page.evaluate('location.hash = "#/runs"');
    await page.reload();
    // The first listing reads every transcript (the 5,000-turn one too): a loaded machine takes its time.
    await expect.poll(() => page.locator("tbody tr").count(), SLOW).toBe(ROWS);
    // Another tab opened without the token is told how to get in.
    const other = await page.context().newPage();
    await other.goto(`${base}/#/runs`);
    await expect.poll(() => other.locator("main").textContent(), SLOW).toContain("open the URL gg console printed");
    await other.close();
  });

  test("no other server on 127.0.0.1 is sent the token, whatever the page or another site does; no foreign page can save", async () => {
    const seen: string[] = [];
    const attack = `<script>
      const api = ${JSON.stringify(base)} + "/api/config/save";
      const body = '{"capabilities": []}';
      navigator.sendBeacon(api, body);
      fetch(api, { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body });
      const form = Object.assign(document.createElement("form"), { method: "POST", action: api, enctype: "text/plain", target: "sink" });
      document.body.append(Object.assign(document.createElement("iframe"), { name: "sink" }), form);
      form.submit();
      const frame = document.createElement("iframe");
      frame.src = ${JSON.stringify(base)} + "/#/runs";
      document.body.append(frame);
    </script>`;
    const other: Server = createServer((request: IncomingMessage, response) => {
      seen.push(`${request.method} ${request.url}\n${JSON.stringify(request.headers)}`);
      response.writeHead(200, { "content-type": "text/html" }).end(request.url === "/attack" ? attack : "ok");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const elsewhere = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
    try {
      await page.goto(url);
      await page.getByRole("heading", { level: 1, name: "Configuration" }).waitFor();
      // The console's page cannot reach another port at all (its CSP); a tab the person opens there is sent only
      // what the browser adds by itself.
      expect(await page.evaluate(`fetch(${JSON.stringify(`${elsewhere}/from-console`)}, { mode: "no-cors", credentials: "include" }).then(() => "sent", () => "blocked")`)).toBe("blocked");
      const tab = await page.context().newPage();
      await tab.goto(`${elsewhere}/tab`);
      await tab.close();
      await page.goto(`${elsewhere}/attack`);
      await page.goBack();
      await page.getByRole("heading", { level: 1, name: "Configuration" }).waitFor();
      await expect.poll(() => seen.length, SLOW).toBeGreaterThanOrEqual(2);
      expect(seen.filter((line) => line.includes(token))).toEqual([]);
      expect(seen.filter((line) => line.includes("gg-console"))).toEqual([]);
      // Nothing the foreign page sent was saved, and the console's own page still works.
      expect(() => readFileSync(join(dir, "gg.json"))).toThrow();
      await open("runs", "Runs");
      await expect.poll(() => page.locator("tbody tr").count(), SLOW).toBe(ROWS);
    } finally {
      other.close();
    }
  });

  test("Save is refused by the API while the parser refuses, and from a foreign Origin; the file is left alone", async () => {
    const bad = JSON.stringify({ capabilities: [{ id: "shell", params: { maxLines: 0, maxChars: 10 } }] });
    const auth = { "x-gg-token": token, "content-type": "application/json" };
    const refused = await get("/api/config/save", auth, bad);
    expect(refused.status).toBe(409);
    expect(JSON.parse(refused.body)).toMatchObject({ saved: false, problems: ['capability "shell" has maxLines 0; it must be a whole number, 1 or more'] });
    const good = JSON.stringify({ capabilities: [] });
    expect((await get("/api/config/save", { ...auth, origin: "http://attacker.example" }, good)).status).toBe(403);
    expect(() => readFileSync(join(dir, "gg.json"))).toThrow();
  });

  test("the API reads only the transcripts it was given", async () => {
    expect((await get(`/api/run?id=${encodeURIComponent("0/../../etc/passwd")}`, { "x-gg-token": token })).status).toBe(404);
  });
});

describe("gg console's pages", () => {
  test("Configuration: a capability edited and saved is what --config reads back", async () => {
    await open("config", "Configuration");
    // The seeds' two groups: Filesystem, and Models & tools (the shell, then the model's settings), each capability a
    // fieldset named by its id with Enabled and Implementation.
    for (const [heading, ids, settings] of [["Filesystem", ["read-file", "write-file", "edit-file", "list-dir", "search"], []], ["Models & tools", ["shell"], ["model", "openingTurn"]]] as const) {
      const groups = page.getByRole("region", { name: heading, exact: true }).getByRole("group");
      expect(await groups.locator("legend").allTextContents()).toEqual([...ids, ...settings]);
      for (const id of ids) expect(await page.getByRole("group", { name: new RegExp(`^${id}`) }).getByRole("checkbox", { name: "Enabled", exact: true }).count()).toBe(1);
    }
    // Every capability this build knows is in one group, once: a new one cannot go missing from the page.
    expect(CAPABILITY_GROUPS.flatMap((group) => group.ids).sort()).toEqual(Object.keys(CAPABILITIES).sort());
    expect(await page.getByRole("group", { name: /^read-file/ }).getByLabel("Implementation").locator("option").allTextContents()).toContain("batch");
    const readFile = page.getByRole("group", { name: /^read-file/ });
    await readFile.getByLabel("Implementation").selectOption("unlimited");
    await readFile.getByLabel(/^lineCap/).fill("500");
    const search = page.getByRole("group", { name: /^search/ });
    await search.getByRole("checkbox", { name: "Enabled", exact: true }).uncheck();
    const shell = page.getByRole("group", { name: /^shell/ });
    await shell.getByLabel(/^maxLines/).fill("300");
    await shell.getByLabel(/^sandbox/).selectOption("workspace-write");
    await shell.getByLabel(/^writable/).fill("/root/.cache\nbuild");
    await page.getByRole("button", { name: "Add agent" }).click();
    const agent = page.getByRole("group", { name: /^agent agent-1/ });
    await agent.getByRole("checkbox", { name: "read_file", exact: true }).check();
    await agent.getByRole("checkbox", { name: "shell", exact: true }).check();
    await page.getByRole("button", { name: "Add rule" }).click();
    const rule = page.getByRole("group", { name: /^rule 1/ });
    await rule.getByLabel("verdict").selectOption("deny");
    await rule.getByLabel("reason", { exact: true }).fill("pushing is for people");
    await rule.getByRole("button", { name: "Add condition" }).click();
    await rule.getByLabel("glob", { exact: true }).fill("git push*");
    await expect.poll(() => page.getByRole("status").textContent(), SLOW).toContain("The parser accepts");
    await shoot("configuration");
    await page.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.getByRole("status").textContent(), SLOW).toContain("Saved to");
    const saved: unknown = JSON.parse(readFileSync(join(dir, "gg.json"), "utf8"));
    const config = parseConfiguration(saved);
    expect(config.capabilities["read-file"]).toEqual({ enabled: true, implementation: "unlimited", params: { lineCap: 500 } });
    expect(config.capabilities.search.enabled).toBe(false);
    expect(config.capabilities.shell.params).toEqual({ maxLines: 300, maxChars: 8000, sandbox: "workspace-write", writable: ["/root/.cache", "build"] });
    expect(config.agents).toEqual({ "agent-1": ["read_file", "shell"] });
    expect(config.approvals?.rules).toEqual([{ call: "shell", when: { command: "git push*" }, verdict: "deny", reason: "pushing is for people" }]);
    // The command line takes the file as it is.
    const tools = JSON.parse(execFileSync(bin, ["tools", "--config", join(dir, "gg.json"), "--agent", "agent-1"], { encoding: "utf8" })) as { function?: { name: string }; name?: string }[];
    expect(tools.map((tool) => tool.function?.name ?? tool.name)).toEqual(["read_file", "shell"]);
  });

  test("Configuration: the parser's refusals are listed in the alert as it words them, and nothing is saved meanwhile", async () => {
    await open("config", "Configuration");
    const before = readFileSync(join(dir, "gg.json"), "utf8");
    const shell = page.getByRole("group", { name: /^shell/ });
    await shell.getByLabel(/^maxLines/).fill("0");
    await shell.getByLabel(/^maxChars/).fill("lots");
    const alert = page.getByRole("alert");
    await expect.poll(() => alert.textContent(), SLOW).toContain('capability "shell" has maxChars "lots"; it must be a whole number, 1 or more');
    expect(await alert.textContent()).toContain('capability "shell" has maxLines 0; it must be a whole number, 1 or more');
    // The previous test saved a sandbox with writable folders: without the sandbox, they would apply to nothing.
    await shell.getByLabel(/^sandbox/).selectOption("off");
    await expect.poll(() => alert.textContent(), SLOW).toContain('capability "shell" sets writable, which only a sandbox applies, but its sandbox is "off"');
    expect(await page.getByRole("button", { name: "Save" }).isDisabled()).toBe(true);
    await shoot("configuration-refused");
    expect(readFileSync(join(dir, "gg.json"), "utf8")).toBe(before);
    await shell.getByLabel(/^maxLines/).fill("200");
    await shell.getByLabel(/^maxChars/).fill("8000");
    await shell.getByLabel(/^sandbox/).selectOption("workspace-write");
    await expect.poll(() => alert.textContent(), SLOW).toBe("");
  });

  test("Models: the catalog as a table, filterable; Specs say vision is declared, learned (naming the run) or unknown", async () => {
    await open("models", "Models");
    const rows = page.locator("tbody tr");
    await expect.poll(() => rows.count(), SLOW).toBe(4);
    await shoot("models");
    await page.getByRole("searchbox", { name: "Filter models" }).fill("image");
    await expect.poll(() => rows.count(), SLOW).toBe(1);
    expect(await rows.first().textContent()).toContain(MODELS.declared);
    const vision = async (model: string): Promise<string> => {
      await open(`models/${encodeURIComponent(model)}`, model);
      await page.getByRole("heading", { name: "Specs" }).waitFor();
      await page.getByTestId("vision").waitFor();
      return (await page.getByTestId("vision").textContent()) ?? "";
    };
    expect(await vision(MODELS.declared)).toMatch(/^declared — sees images/);
    expect(await page.locator("dl.specs").textContent()).toContain("128,000 tokens");
    await shoot("model");
    const learned = await vision(MODELS.learned);
    expect(learned).toMatch(/^learned — text only/);
    expect(learned).toContain("runs/nested/vision.jsonl");
    expect(await vision(MODELS.unknown)).toMatch(/^unknown/);
    // Under Specs the vision is exactly one of the three words, and nothing else there uses any of them.
    for (const [model, word] of [[MODELS.declared, "declared"], [MODELS.learned, "learned"], [MODELS.unknown, "unknown"]] as const) {
      await vision(model);
      const specs = (await page.locator("dl.specs").textContent()) ?? "";
      expect(["declared", "learned", "unknown"].filter((each) => specs.includes(each))).toEqual([word]);
      expect(await page.locator(".legend").count()).toBe(0);
    }
    // The legend of the three words is on the Models list.
    await open("models", "Models");
    const legend = (await page.locator(".legend").textContent()) ?? "";
    for (const word of ["declared", "learned", "unknown"]) expect(legend).toContain(word);
  });

  test("Runs: every transcript under --runs and the study's, and a run's tokens by band as a chart and as figures", async () => {
    await open("runs", "Runs");
    await expect.poll(() => page.locator("tbody tr").count(), SLOW).toBe(ROWS);
    await shoot("runs");
    // The .jsonl files that are not runs, each with why.
    const skipped = (await page.getByRole("region", { name: "Skipped" }).textContent()) ?? "";
    for (const [path, reason] of Object.entries(HOSTILE_SKIPPED)) expect(skipped).toContain(`${join("hostile", path)}: ${reason}`);
    // Sorted by a figure, the largest first.
    await page.getByRole("button", { name: "Turns", exact: true }).click();
    expect(await page.locator("tbody tr").first().locator("td").nth(1).textContent()).toBe("long.jsonl");
    await page.getByRole("link", { name: "code.jsonl", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "code.jsonl" }).waitFor();
    expect(await page.getByRole("img", { name: /Stacked bar chart/ }).count()).toBe(1);
    // The figures the chart draws, as text: the end line's estimate for turn 1.
    const recorded = readFileSync(join(dir, "runs", "code.jsonl"), "utf8").trim().split("\n").at(-1) as string;
    const first = (JSON.parse(recorded) as { report: { turns: { estimate: Record<string, number> }[] } }).report.turns[0]?.estimate as Record<string, number>;
    const cells = await page.getByRole("table", { name: "Tokens by band per turn" }).locator("tbody tr").first().locator("td").allTextContents();
    expect(cells.slice(0, 6)).toEqual(["1", ...["system", "tools", "messages", "toolResults", "views"].map((band) => (first[band] as number).toLocaleString("en-US"))]);
    // The program and its calls.
    expect(await page.locator("main").textContent()).toContain("gg.files.writeFile('out.txt'");
    expect(await page.locator("main").textContent()).toContain("created: out.txt");
    // The program's report, as the model read it.
    await page.getByText("Report (what the model was told)").click();
    expect(await page.locator("main").textContent()).toContain("Returned:\n11");
    await shoot("run");
  });

  test("a 5,000-turn run's page shows its figures a page at a time", async () => {
    const started = Date.now();
    await open(`runs/${encodeURIComponent("0/long.jsonl")}`, "long.jsonl");
    await page.getByText("1–100 of 5000").first().waitFor();
    console.log(`5,000-turn run page ready in ${Date.now() - started} ms`);
    await page.getByRole("button", { name: "Next" }).first().click();
    const firstTurn = (): Promise<string | null> => page.getByRole("table", { name: "Tokens by band per turn" }).locator("tbody tr").first().locator("td").first().textContent();
    expect(await firstTurn()).toBe("101");
    await page.getByRole("button", { name: "Last" }).first().click();
    expect(await firstTurn()).toBe("4901");
  }, 60_000);

  test("a transcript holding <script> and <img onerror> is shown as text and runs nothing", async () => {
    await open("runs", "Runs");
    await page.getByRole("link", { name: "xss.jsonl", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "xss.jsonl" }).waitFor();
    expect(await page.locator("main").textContent()).toContain(XSS);
    expect(await page.evaluate(() => (globalThis as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(await page.locator("main script, main img").count()).toBe(0);
  });

  test("Studies: the grid of cases × agents and the pairs side by side", async () => {
    await open("studies", "Studies");
    const grid = page.getByRole("table", { name: /^cases by agents/ });
    await expect.poll(() => grid.locator("tbody tr").count(), SLOW).toBe(2);
    expect(await grid.textContent()).toContain("pass 1/2");
    const pairs = page.getByRole("table", { name: /^pairs/ });
    expect(await pairs.textContent()).toContain("arm");
    await shoot("studies");
  });

  test("a study trial whose check failed shows its verdict, the check's output and the diff, and links its study", async () => {
    // The study is the third folder given (after --runs runs and --runs hostile).
    await open(`runs/${encodeURIComponent("2/add-test/tools/2.jsonl")}`, "add-test/tools/2.jsonl");
    expect(await page.getByTestId("verdict").textContent()).toBe("fail: the check exited 1");
    expect(await page.getByTestId("verdict").getAttribute("class")).toBe("bad");
    // The agent answered, but that is not shown as a success beside a failed check.
    const outcome = page.locator("dl.specs dt:text-is(\"Agent's outcome\") + dd");
    expect(await outcome.textContent()).toBe("answered");
    expect(await outcome.getAttribute("class")).toBeNull();
    expect(await page.getByLabel("check output").textContent()).toBe(FAILED_CHECK);
    expect(await page.getByLabel("diff").textContent()).toBe(FAILED_DIFF);
    await shoot("trial");
    await page.getByRole("region", { name: "Study trial" }).getByRole("link", { name: "study" }).click();
    await page.getByRole("heading", { level: 1, name: "Studies" }).waitFor(SLOW);
    // The link leads to that study (the one holding the folder), with the way to all of them.
    expect(new URL(page.url()).hash).toBe("#/studies/study");
    await page.getByRole("table", { name: "cases by agents of study" }).waitFor(SLOW);
    expect(await page.locator("main").textContent()).toContain("The study in study. All studies");
    // A folder no study given is in says so, with the same way back.
    await open("studies/elsewhere", "Studies");
    await page.getByText("No study given to gg console is in elsewhere.").waitFor(SLOW);
    expect(await page.getByRole("table").count()).toBe(0);
    await page.getByRole("link", { name: "All studies" }).click();
    await page.getByRole("table", { name: "cases by agents of study" }).waitFor(SLOW);
  });

  test("Runs: each row names its folder and date, so one transcript in several folders reads as several rows", async () => {
    await open("runs", "Runs");
    await expect.poll(() => page.locator("tbody tr").count(), SLOW).toBe(ROWS);
    const rows = await page.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].slice(0, 3).map((td) => td.textContent)));
    // code.jsonl is also the study's fix-typo/code/1 trial: two rows, told apart by folder.
    expect(rows.filter((row) => row[1] === "code.jsonl" || row[1] === "fix-typo/code/1.jsonl").map((row) => row.slice(0, 2))).toEqual([["runs", "code.jsonl"], ["study/transcripts", "fix-typo/code/1.jsonl"]]);
    expect(new Set(rows.map((row) => row[0]))).toEqual(new Set(["runs", "hostile", "study/transcripts"]));
    for (const row of rows) expect(row[2]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
  });

  test("a run's page: its cost at the catalog's prices, approvals in words, retries with their causes; a run with no turns says so", async () => {
    await open(`runs/${encodeURIComponent("0/code.jsonl")}`, "code.jsonl");
    const report = (JSON.parse(readFileSync(join(dir, "runs", "code.jsonl"), "utf8").trim().split("\n").at(-1) as string) as { report: AgentReport }).report;
    const pricing = { prompt: 0.0000025, completion: 0.00001 };
    const cost = (await page.getByTestId("cost").textContent()) ?? "";
    expect(cost).toMatch(/^\$[\d.]+ at the catalog's prices$/);
    // Shown to two significant digits, as the studies page shows costs.
    expect(Number(cost.slice(1, cost.indexOf(" ")))).toBe(Number((runCost(pricing, report.turns.map((turn) => turn.usage)) ?? 0).toPrecision(2)));
    await open(`runs/${encodeURIComponent("0/turns.jsonl")}`, "turns.jsonl");
    expect(await page.getByTestId("cost").textContent()).toMatch(/ at the catalog's prices$/);
    expect(await page.locator(".tag").allTextContents()).toEqual(APPROVALS.map((each) => each.words));
    expect(await page.getByRole("region", { name: "Retries" }).locator("li").allTextContents()).toEqual([RETRY.words]);
    await open(`runs/${encodeURIComponent("0/empty.jsonl")}`, "empty.jsonl");
    expect(await page.locator("main").textContent()).toContain("No turns: the run ended before its first answer.");
    expect(await page.getByRole("img", { name: /Stacked bar chart/ }).count()).toBe(0);
  });

  test("an unknown route says not found, with the way back", async () => {
    await open("nonsense", "Not found");
    expect(await page.locator("main").textContent()).toContain("The console has no page at #/nonsense.");
    await page.getByRole("link", { name: "Back to the Configuration" }).click();
    await page.getByRole("heading", { level: 1, name: "Configuration" }).waitFor(SLOW);
  });
});
