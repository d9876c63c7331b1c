// Test fixture: what a configuration's refusal names.
import { ConfigError, parseConfiguration } from "../../bindings/config.ts";

/** The problems parseConfiguration names for `input`; fails the test when it accepts it. */
export function problems(input: unknown): readonly string[] {
  try {
    parseConfiguration(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error("configuration was accepted");
}
