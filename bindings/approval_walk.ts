// What a walk leaves out: every entry the agent may not read, as if it were ignored. A walk (search, tree, list_dir,
// list, glob) shows what no single call names, so the rules are asked of each entry it meets: the rules of the walk's
// own call, of "*" and of the calls that read (read_file, read, view_image) whose verdict is not allow (a deny, or an
// ask, since a walk cannot stop to ask about each entry), matched against the entry's path as written and as the file
// system resolves it. A configuration without such a rule gets no filter at all.
import type { ApprovalRule, Configuration } from "./capabilities.ts";
import { applies, type CallTraits, type Place, realRulePath, ruleFor, rulePath } from "./approval_match.ts";

/** Whether a walk leaves out the entry at `relative` (`/`-separated, below the walk's root). */
export type Hidden = (relative: string) => boolean;

/** The rules that can hide what a walk by `call` meets, found once per configuration and call. */
const hiding = new WeakMap<Configuration, Map<string, ApprovalRule[]>>();
function hidingRules(config: Configuration, call: CallTraits): ApprovalRule[] {
  let known = hiding.get(config);
  if (!known) hiding.set(config, (known = new Map()));
  let rules = known.get(call.name);
  if (!rules) {
    const all = [...(config.approvals?.rules ?? []), ...(config.agentApproval?.rules ?? [])];
    known.set(call.name, (rules = all.filter((rule) => rule.verdict !== "allow" && rule.when?.path !== undefined && ruleFor(rule, call))));
  }
  return rules;
}

/** `path` as a rule sees it, as the prefix of the paths below it: "" for the workspace's root. */
const prefixOf = (path: string): string => (path === "." ? "" : path.endsWith("/") ? path : `${path}/`);

/**
 * What a walk by `call` (with `args`) of `root` (as the call names it, from `place.cwd`) leaves out; undefined when
 * the rules hide nothing. Below its root a walk enters no symbolic link, so an entry's real path is the root's real
 * path joined with the entry's path below it.
 */
export function hiddenBelow(config: Configuration, call: { name: string }, args: Record<string, unknown>, root: string, place: Place): Hidden | undefined {
  const traits: CallTraits = { name: call.name, effects: false, paths: true, walks: true };
  const rules = hidingRules(config, traits);
  if (rules.length === 0) return undefined;
  const written = prefixOf(rulePath(root, place));
  const real = prefixOf(realRulePath(root, place));
  const hides = (path: string): boolean => rules.some((rule) => applies(rule, traits, args, path));
  return written === real ? (relative) => hides(written + relative) : (relative) => hides(written + relative) || hides(real + relative);
}
