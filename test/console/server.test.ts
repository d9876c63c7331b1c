// gg console's server under input no browser of the person's would send: raw requests over node:net to a real
// `gg console` (malformed targets, headers and cookies, bodies cut off), a runs folder with link cycles and reports
// edited by hand, and saves racing a link planted where the old temp file went. Every request gets an answer and the
// server keeps serving.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { HOSTILE_SKIPPED, writeHostileRuns } from "./fixtures.ts";
import { type RunningConsole, startGgConsole } from "./process.ts";

let dir: string;
let gg: RunningConsole;

/**
 * Sends `text` as it is over a fresh connection; resolves to the status line's code and the whole answer once the
 * server closes it (every request sent says Connection: close; `cut` drops the connection mid-request instead).
 * The client never half-closes: Node's server drops a request whose client did before it answered.
 */
function raw(text: string | Buffer, { cut = false } = {}): Promise<{ status: number; answer: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(gg.port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk: Buffer) => (answer += chunk.toString("latin1")));
    socket.on("error", reject);
    socket.on("close", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), answer }));
    socket.write(text);
    if (cut) setTimeout(() => socket.destroy(), 200);
  });
}

/** A GET of `path` with the console's Host and `headers` (each "Name: value"), over a raw connection. */
const get = (path: string, ...headers: string[]): Promise<{ status: number; answer: string }> =>
  raw(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${gg.port}\r\n${headers.map((header) => `${header}\r\n`).join("")}Connection: close\r\n\r\n`);

const withToken = (): string => `x-gg-token: ${gg.token}`;

/** The body of an answer (after the headers). */
const body = (answer: string): string => answer.slice(answer.indexOf("\r\n\r\n") + 4);

/** The console still serves: a good API request is answered, and the process is alive. */
async function stillServing(): Promise<void> {
  expect((await get("/api/config", withToken())).status).toBe(200);
  expect(gg.child.exitCode).toBeNull();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gg-console-server-"));
  writeHostileRuns(join(dir, "runs"));
  writeFileSync(join(dir, "gg.json"), '{"capabilities": []}\n', { mode: 0o600 });
  // A study folder whose trials.jsonl is a folder: reading it fails inside the studies handler.
  mkdirSync(join(dir, "broken-study", "trials.jsonl"), { recursive: true });
  gg = await startGgConsole(dir, ["--config", "gg.json", "--runs", "runs", "--study", "broken-study"]);
}, 60_000);

afterAll(() => {
  gg?.child.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

describe("gg console answers every request, and keeps serving", () => {
  test("a malformed cookie planted by another port's page changes nothing: no token is read from cookies", async () => {
    const cookie = `Cookie: gg-console-${gg.port}=%E0%A4%A`;
    expect((await get("/api/runs", cookie)).status).toBe(401);
    expect((await get("/", cookie)).status).toBe(200);
    expect((await get("/api/runs", cookie, withToken())).status).toBe(200);
    // The right token in a cookie is not a credential either: only the header is.
    expect((await get("/api/runs", `Cookie: gg-console-${gg.port}=${gg.token}`)).status).toBe(401);
    await stillServing();
  });

  test("a request target that is not a path gets a 400 naming it", async () => {
    for (const target of ["http://[", "http://127.0.0.1/api/runs", "*", "//evil/api/runs", "%"]) {
      const { status, answer } = await raw(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${gg.port}\r\n${withToken()}\r\nConnection: close\r\n\r\n`);
      expect([target, status]).toEqual([target, 400]);
      if (target === "http://[") expect(body(answer)).toBe('Cannot read the request target "http://[": the console takes a path that starts with /\n');
    }
    await stillServing();
  });

  test("headers Node cannot parse, and a token of any bytes, are answered with a 4xx", async () => {
    expect((await raw(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${gg.port}\r\nBad Header\r\n\r\n`)).status).toBe(400);
    expect((await raw(Buffer.from(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${gg.port}\r\nX: \u0000\r\n\r\n`, "latin1"))).status).toBe(400);
    expect((await raw("NOT-HTTP\r\n\r\n")).status).toBe(400);
    // As long as the token in characters, longer in bytes: compared as bytes, refused.
    const wide = Buffer.from(`GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1:${gg.port}\r\nx-gg-token: ${"\u00e9".repeat(gg.token.length)}\r\nConnection: close\r\n\r\n`, "latin1");
    expect((await raw(wide)).status).toBe(403);
    expect((await get(`/?token=${"%C3%A9".repeat(gg.token.length)}`)).status).toBe(403);
    expect((await get("/?token=%E0%A4%A")).status).toBe(403);
    await stillServing();
  });

  test("a Save whose body is cut off mid-way, or is not JSON, fails alone", async () => {
    const head = `POST /api/config/save HTTP/1.1\r\nHost: 127.0.0.1:${gg.port}\r\n${withToken()}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"capa`;
    await raw(head, { cut: true });
    const notJson = await raw(`POST /api/config/save HTTP/1.1\r\nHost: 127.0.0.1:${gg.port}\r\n${withToken()}\r\ncontent-length: 3\r\nConnection: close\r\n\r\n{x}`);
    expect(notJson.status).toBe(400);
    expect(readFileSync(join(dir, "gg.json"), "utf8")).toBe('{"capabilities": []}\n');
    await stillServing();
  });
});

describe("gg console survives its handlers", () => {
  test("a handler that fails answers 500 for its request alone, naming it, and the console keeps serving", async () => {
    const failed = await get("/api/studies", withToken());
    expect(failed.status).toBe(500);
    expect((JSON.parse(body(failed.answer)) as { error: string }).error).toMatch(/^Cannot answer \/api\/studies: .*EISDIR.*; the console still serves other requests$/);
    await stillServing();
  });
});

describe("gg console lists a hostile runs folder", () => {
  test("link cycles end, and transcripts that are not runs are listed as skipped with why: /api/runs and /api/models answer", async () => {
    const runs = await get("/api/runs", withToken());
    expect(runs.status).toBe(200);
    const list = JSON.parse(body(runs.answer)) as { runs: { id: string }[]; skipped: { id: string; reason: string }[] };
    expect(list.runs.map((run) => run.id)).toEqual(["0/good.jsonl"]);
    expect(Object.fromEntries(list.skipped.map((file) => [file.id.slice(2), file.reason]))).toEqual(HOSTILE_SKIPPED);
    const models = await get("/api/models", withToken());
    expect(models.status).toBe(200);
    expect((JSON.parse(body(models.answer)) as { models: { runs: number }[] }).models.map((model) => model.runs)).toContain(1);
    const skipped = await get(`/api/run?id=${encodeURIComponent("0/null-report.jsonl")}`, withToken());
    expect([skipped.status, JSON.parse(body(skipped.answer))]).toEqual([422, { error: `Cannot show ${join("runs", "null-report.jsonl")} as a run: its end line's report is null, not a run's report` }]);
  });
});

describe("gg console's Save", () => {
  const save = (config: unknown): Promise<{ status: number; answer: string }> => {
    const text = JSON.stringify(config);
    return raw(`POST /api/config/save HTTP/1.1\r\nHost: 127.0.0.1:${gg.port}\r\n${withToken()}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
  };

  test("a link planted at the old temp name is left alone, and the file keeps its mode 0600", async () => {
    writeFileSync(join(dir, "victim"), "untouched\n");
    const pid = gg.child.pid as number;
    for (const name of [`gg.json.${pid}.tmp`, ".gg.json.tmp", "gg.json.tmp"]) symlinkSync(join(dir, "victim"), join(dir, name));
    const saved = await save({ capabilities: [{ id: "shell", params: { maxLines: 300, maxChars: 8000 } }] });
    expect(saved.status).toBe(200);
    expect(readFileSync(join(dir, "victim"), "utf8")).toBe("untouched\n");
    expect(JSON.parse(readFileSync(join(dir, "gg.json"), "utf8"))).toEqual({ capabilities: [{ id: "shell", params: { maxLines: 300, maxChars: 8000 } }] });
    expect(lstatSync(join(dir, "gg.json")).isFile()).toBe(true);
    expect(statSync(join(dir, "gg.json")).mode & 0o777).toBe(0o600);
    // Nothing left beside it but what was there.
    expect(readdirSync(dir).sort()).toEqual([".gg.json.tmp", "broken-study", "gg.json", `gg.json.${pid}.tmp`, "gg.json.tmp", "runs", "victim"]);
  });

  test("saves racing each other leave one of them whole, and no temp file", async () => {
    const configs = Array.from({ length: 12 }, (_, index) => ({ capabilities: [{ id: "shell", params: { maxLines: 100 + index, maxChars: 8000 } }] }));
    const answers = await Promise.all(configs.map(save));
    expect(answers.map((answer) => answer.status)).toEqual(configs.map(() => 200));
    expect(configs).toContainEqual(JSON.parse(readFileSync(join(dir, "gg.json"), "utf8")));
    expect(readdirSync(dir).filter((name) => name.includes(".gg-"))).toEqual([]);
    expect(statSync(join(dir, "gg.json")).mode & 0o777).toBe(0o600);
  });
});
