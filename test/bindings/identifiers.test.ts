// The identifier rule of issue 36 for MCP tool and server names: what a name becomes, and a namespace in which names
// that come out the same are all left out rather than one put in another's place.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { namespaceOf, toIdentifier } from "../../bindings/identifiers.ts";
import { numRuns } from "../deep.ts";

/** Whether `name` can be declared and read bare in strict-mode and module code. */
function bindable(name: string): boolean {
  try {
    new Function(`"use strict"; let ${name} = 1; return ${name};`);
    new Function(`"use strict"; return async () => { const ${name} = 1; return ${name}; };`);
    return true;
  } catch {
    return false;
  }
}

describe("toIdentifier", () => {
  test.each([
    ["an identifier stays as it is", "create_entities", "create_entities"],
    ["- becomes _", "get-env", "get_env"],
    [". and whitespace become _, each one", "a.b c\td  e", "a_b_c_d__e"],
    ["characters an identifier cannot hold are dropped", "a/b:c!?", "abc"],
    ["a leading digit gets a _ before it", "1st-tool", "_1st_tool"],
    ["a leading digit left by dropped characters too", "!2x", "_2x"],
    ["a leading combining mark gets a _ before it", "\u0301a", "_\u0301a"],
    ["letters of any script are kept", "données_読む", "données_読む"],
    ["$ is kept", "$get", "$get"],
    ["an emoji is dropped", "🙂tool", "tool"],
    ["a reserved word gets a _ after it", "delete", "delete_"],
    ["a strict-mode reserved word too", "interface", "interface_"],
    ["await and yield too", "await", "await_"],
    ["a reserved word made by the rule too", "cl!ass", "class_"],
    ["then is left as it is (the namespace leaves it out)", "then", "then"],
    ["a name of only -", "-", "_"],
  ])("%s", (_, name, identifier) => {
    expect(toIdentifier(name)).toBe(identifier);
    expect(bindable(identifier)).toBe(true);
  });

  test.each([
    ["an empty name has none", ""],
    ["a name of only dropped characters has none", "!!!/?"],
  ])("%s", (_, name) => {
    expect(toIdentifier(name)).toBeUndefined();
  });

  test("any string comes out as nothing or as a name a program can declare and read bare", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 12 }), (name) => {
        const identifier = toIdentifier(name);
        // eval and arguments are not reserved words: they are fine as the property names the rule makes.
        if (identifier !== undefined && identifier !== "eval" && identifier !== "arguments") expect(bindable(identifier), JSON.stringify(name)).toBe(true);
      }),
      { numRuns: numRuns(3000) },
    );
  });

  test("a configured server's name ([A-Za-z][A-Za-z0-9_-]*) always has one", () => {
    expect(["memory", "my-server", "Server_2", "class"].map(toIdentifier)).toEqual(["memory", "my_server", "Server_2", "class_"]);
  });
});

describe("namespaceOf", () => {
  test("names with distinct identifiers are all kept, in order", () => {
    const namespace = namespaceOf(["get-env", "echo", "get-sum"]);
    expect([...namespace.byIdentifier]).toEqual([["get_env", "get-env"], ["echo", "echo"], ["get_sum", "get-sum"]]);
    expect(namespace.collisions).toEqual([]);
    expect(namespace.leftOut).toEqual([]);
  });

  test("two names that come out the same are both left out and named together", () => {
    const namespace = namespaceOf(["a-b", "keep", "a_b"]);
    expect([...namespace.byIdentifier]).toEqual([["keep", "keep"]]);
    expect(namespace.collisions).toEqual([{ identifier: "a_b", names: ["a-b", "a_b"] }]);
    expect(namespace.leftOut).toEqual([
      { name: "a-b", identifier: "a_b", reason: "collision" },
      { name: "a_b", identifier: "a_b", reason: "collision" },
    ]);
  });

  test("three names that come out the same are all left out", () => {
    expect(namespaceOf(["x.y", "x y", "x-y", "z"]).collisions).toEqual([{ identifier: "x_y", names: ["x.y", "x y", "x-y"] }]);
  });

  test("a name given twice collides with itself: neither copy is kept", () => {
    const namespace = namespaceOf(["dup", "dup"]);
    expect(namespace.byIdentifier.size).toBe(0);
    expect(namespace.collisions).toEqual([{ identifier: "dup", names: ["dup", "dup"] }]);
  });

  test("a name that comes out as then is left out, so the namespace is not thenable", () => {
    const namespace = namespaceOf(["then", "other"]);
    expect([...namespace.byIdentifier.keys()]).toEqual(["other"]);
    expect(namespace.leftOut).toEqual([{ name: "then", identifier: "then", reason: "then" }]);
  });

  test("a reserved word's identifier may collide with a name spelt that way", () => {
    expect(namespaceOf(["delete", "delete_"]).collisions).toEqual([{ identifier: "delete_", names: ["delete", "delete_"] }]);
  });

  test("a name with nothing left is left out", () => {
    expect(namespaceOf(["???", "ok"]).leftOut).toEqual([{ name: "???", reason: "no-identifier" }]);
  });

  test("every name is either kept under its own identifier or left out, never both, never silently replaced", () => {
    const name = fc.oneof(fc.string({ unit: "binary", maxLength: 4 }), fc.constantFrom("a-b", "a_b", "a.b", "then", "class", "class_", "1x", "_1x"));
    fc.assert(
      fc.property(fc.array(name, { maxLength: 8 }), (names) => {
        const { byIdentifier, collisions, leftOut } = namespaceOf(names);
        expect(byIdentifier.size + leftOut.length).toBe(names.length);
        for (const [identifier, kept] of byIdentifier) {
          expect(toIdentifier(kept)).toBe(identifier);
          expect(names.filter((other) => toIdentifier(other) === identifier)).toEqual([kept]);
        }
        for (const { identifier, names: colliding } of collisions) expect(colliding).toEqual(names.filter((other) => toIdentifier(other) === identifier));
      }),
      { numRuns: numRuns(2000) },
    );
  });
});
