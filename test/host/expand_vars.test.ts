import { describe, expect, test } from "vitest";
import { expandEntry, withheld } from "../../host/expand_vars.ts";

describe("withheld", () => {
  test("a value that holds another (a user name inside its password) is withheld whole, whatever the order", () => {
    const { values } = expandEntry({ args: ["${USER_NAME}", "${PASSWORD}"] }, { USER_NAME: "admin", PASSWORD: "admin-s3cret-42" });
    expect(values).toEqual(["admin", "admin-s3cret-42"]);
    const message = withheld("login admin with admin-s3cret-42 refused", values);
    expect(message).toBe("login [withheld] with [withheld] refused");
    expect(message).not.toContain("s3cret");
  });
});
