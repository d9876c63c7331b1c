// The OpenAI-compatible provider against a local server speaking the chat completions API: bounded retries with
// Retry-After recorded and reported as they are decided, refusals that are not worth a retry, network failures named,
// the key rules, and what counts as refusing pictures.
import { describe, expect, test } from "vitest";
import { apiKeyFor, isPictureRefusal, openAIProvider, ProviderError, type Retry, retryAfterMs, shownURL, withholdKey } from "../../agent/provider.ts";
import { closedPort, fakeModel } from "../provider.ts";

describe("the OpenAI-compatible provider", () => {
  test("retries a 429 after its Retry-After and a 500 after a backoff, and records both", async () => {
    await using local = await fakeModel([{ status: 429, headers: { "retry-after": "0" } }, { status: 500 }, { content: "done" }]);
    const provider = openAIProvider({ baseURL: local.baseURL, backoffMs: 1 });
    const answer = await provider.complete({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(answer.completion.choices[0]?.message.content).toBe("done");
    expect(answer.retries).toMatchObject([{ attempt: 1, status: 429, waitMs: 0 }, { attempt: 2, status: 500, waitMs: 2 }]);
    expect(local.requests).toHaveLength(3);
  });

  test("each retry is reported when it is decided, before its wait and the request sent again", async () => {
    const told: { retry: Retry; maxRetries: number; requests: number }[] = [];
    await using local = await fakeModel([{ status: 503 }, { status: 502 }, { content: "done" }]);
    const provider = openAIProvider({ baseURL: local.baseURL, backoffMs: 1, maxRetries: 3, onRetry: (retry, maxRetries) => told.push({ retry, maxRetries, requests: local.requests.length }) });
    await provider.complete({ model: "m", messages: [{ role: "user", content: "hi" }] });
    expect(told).toMatchObject([
      { retry: { attempt: 1, status: 503, waitMs: 1 }, maxRetries: 3, requests: 1 },
      { retry: { attempt: 2, status: 502, waitMs: 2 }, maxRetries: 3, requests: 2 },
    ]);
  });

  test("a server nothing answers for is named as a network failure with the URL tried, never as a refusal", async () => {
    const port = await closedPort();
    const provider = openAIProvider({ baseURL: `http://127.0.0.1:${port}/v1/`, backoffMs: 1, maxRetries: 1 });
    const failed = await provider.complete({ model: "m", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    const named = `could not connect to 127.0.0.1:${port} (connection refused)`;
    expect(failed).toMatchObject({ status: undefined, retries: [{ attempt: 1, reason: named }] });
    expect((failed as Error).message).toBe(`Cannot reach the model at http://127.0.0.1:${port}/v1/chat/completions: ${named}, after 1 retry; check that the server is up and that the base URL names it`);
  });

  test("a request the server never answers is named by its timeout", async () => {
    await using local = await fakeModel(["hold", "hold"]);
    const provider = openAIProvider({ baseURL: local.baseURL, backoffMs: 1, maxRetries: 0, timeoutMs: 200 });
    const failed = await provider.complete({ model: "m", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect((failed as Error).message).toMatch(/^Cannot reach the model at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: no answer from 127\.0\.0\.1:\d+ within 0\.2 s; /);
  });

  test("an HTTP failure names its status and the URL, and says what to check", async () => {
    await using local = await fakeModel([{ status: 401, message: "bad key" }]);
    const failed = await openAIProvider({ baseURL: local.baseURL }).complete({ model: "m", messages: [] }).catch((error: unknown) => error);
    expect((failed as Error).message).toBe(`Cannot get an answer from the model at ${local.baseURL}/chat/completions: the provider answered HTTP 401 (bad key); check the API key (GG_API_KEY, OPENAI_API_KEY or OPENROUTER_API_KEY)`);
  });

  test("URLs in messages lose their credentials and query; the key's variable is withheld from commands", () => {
    expect(shownURL("https://user:secret@example.com:8443/v1/chat/completions?key=secret")).toBe("https://example.com:8443/v1/chat/completions");
    const env: Record<string, string | undefined> = { GG_API_KEY: "k1", OPENAI_API_KEY: "k2", OPENROUTER_API_KEY: "k1", HOME: "/home" };
    withholdKey("k1", env);
    expect(env).toEqual({ OPENAI_API_KEY: "k2", HOME: "/home" });
  });

  test("a 400 is not retried; retries are bounded", async () => {
    await using local = await fakeModel([{ status: 400, message: "bad request" }, { status: 503 }, { status: 503 }, { status: 503 }]);
    const provider = openAIProvider({ baseURL: local.baseURL, backoffMs: 1, maxRetries: 2 });
    const refused = await provider.complete({ model: "m", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProviderError);
    expect(refused).toMatchObject({ status: 400, retries: [] });
    const spent = await provider.complete({ model: "m", messages: [{ role: "user", content: "hi" }] }).catch((error: unknown) => error);
    expect(spent).toMatchObject({ status: 503, retries: [{ status: 503 }, { status: 503 }] });
  });

  test("the key comes from GG_API_KEY, OPENAI_API_KEY or OPENROUTER_API_KEY; none is refused unless the server is local", () => {
    expect(apiKeyFor("https://openrouter.ai/api/v1", { OPENAI_API_KEY: "b", OPENROUTER_API_KEY: "c" })).toEqual({ key: "b" });
    expect(apiKeyFor("https://openrouter.ai/api/v1", { GG_API_KEY: "a", OPENAI_API_KEY: "b" })).toEqual({ key: "a" });
    expect(apiKeyFor("https://openrouter.ai/api/v1", {})).toEqual({ refused: expect.stringContaining("no API key; set GG_API_KEY") });
    expect(apiKeyFor("http://127.0.0.1:9/v1", {})).toEqual({ key: "none" });
    expect(() => openAIProvider({ baseURL: "https://example.invalid/v1", env: {} })).toThrow(/no API key/);
  });

  test("Retry-After in seconds or as a date, capped at a minute", () => {
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs("3600")).toBe(60_000);
    expect(retryAfterMs("soon")).toBeUndefined();
  });

  test("a refusal of pictures is a 4xx to a request that carried one, whatever its wording", () => {
    // OpenRouter (404 "No endpoints found that support image input"), OpenAI (400), other servers (422).
    for (const code of [404, 400, 422]) expect(isPictureRefusal(code, true)).toBe(true);
    for (const code of [401, 403, 408, 409, 429, 500, 503]) expect(isPictureRefusal(code, true)).toBe(false);
    expect(isPictureRefusal(400, false)).toBe(false);
    expect(isPictureRefusal(undefined, true)).toBe(false);
  });
});
