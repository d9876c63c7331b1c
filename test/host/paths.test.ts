import { expect, test } from "vitest";
import { pathKey } from "../../host/paths.ts";

test("pathKey() spells a path one way: absolute, without . segments or repeated and trailing slashes", () => {
  expect(["red.png", "./red.png", ".//red.png", "/ws/red.png", "/ws/./red.png"].map((path) => pathKey("/ws/", path))).toEqual(Array(5).fill("/ws/red.png"));
  expect(pathKey("/ws", "img/")).toBe("/ws/img");
});

test("pathKey() keeps .., which the kernel resolves through symlinks", () => {
  expect(pathKey("/ws", "link/../red.png")).toBe("/ws/link/../red.png");
});
