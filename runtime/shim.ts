// The guest side of the gg global: a strict-mode shim run in each isolate before its program. It captures the host's
// dispatchers and the builtins it relies on, installs gg and console, takes away what escapes the heap limit, and
// settles the program's promise into one JSON string. Arguments cross as one JSON string made here; what JSON cannot
// carry is reported to the host as such, which refuses the call like any bad argument.

/** Characters of one console entry. */
const LOG_ENTRY_CHARS = 8192;
/** Characters of the reason a program's arguments could not become JSON, as the guest sends it. */
export const UNSENT_CHARS = 300;

/** Names gg.context.state lists at most, and value nodes it walks per name to guess a size. */
const HELD_NAMES = 200;
const SIZE_NODES = 5000;

// The realm of a session: a program's head line hands its top-level bindings to __gg_keep; as it ends, each one
// initialized becomes an accessor on globalThis (a const's has no setter), and the host is told what the realm holds
// beyond what the shim found there: names, kinds and a guessed size, from data properties only (no getter runs).
const REALM = `const builtins = new SetCtor(ownKeys(globalThis));
apply(setAdd, builtins, ["__gg_keep"]);
apply(setAdd, builtins, ["__gg_settle"]);
let kept = null;
// True while the builtins are as the shim left them: restored between programs (restoreIdle, which the host calls once
// a program's report is out) with no guest code run since. The only guest code that can run between programs is a
// FinalizationRegistry's cleanup (a reply that comes after its program ended resumes nothing), so each cleanup a
// program registers says it ran, and the next program restores as it starts.
let restored = false;
const NativeRegistry = FinalizationRegistry;
const Registry = function FinalizationRegistry(cleanup) {
  if (new.target === undefined) throw new TypeErrorCtor("Constructor FinalizationRegistry requires 'new'");
  const wrapped = typeof cleanup === "function" ? (value) => { restored = false; return apply(cleanup, undefined, [value]); } : cleanup;
  return construct(NativeRegistry, [wrapped], new.target);
};
replaceBuiltin("FinalizationRegistry", NativeRegistry, Registry);
defineProperty(globalThis, "__gg_keep", fixed((entries) => {
  if (!restored) restore();
  restored = false;
  kept = entries;
}));
const kindOf = (value) => {
  if (typeof value === "function") return apply(sliceString, apply(functionText, value, []), [0, 5]) === "class" ? "class" : "function";
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  if (isArray(value)) return "array";
  if (value instanceof MapCtor) return "map";
  if (value instanceof SetCtor) return "set";
  return "object";
};
const sizeOf = (root) => {
  const stack = [root], seen = new SetCtor();
  let bytes = 0, nodes = 0;
  while (stack.length > 0 && nodes < ${SIZE_NODES}) {
    const value = stack[stack.length - 1];
    stack.length--;
    nodes++;
    if (typeof value === "string") { bytes += 16 + value.length; continue; }
    if (typeof value !== "object" && typeof value !== "function") { bytes += 8; continue; }
    if (value === null || apply(setHas, seen, [value])) continue;
    apply(setAdd, seen, [value]);
    bytes += 32;
    if (ArrayBufferView(value)) { bytes += value.byteLength; continue; }
    if (value instanceof MapCtor) { bytes += 64 * apply(mapSizeGetter, value, []); continue; }
    if (value instanceof SetCtor) { bytes += 32 * apply(sizeGetter, value, []); continue; }
    const names = keys(value);
    for (let i = 0; i < names.length; i++) {
      const property = getOwnPropertyDescriptor(value, names[i]);
      bytes += 16;
      if (property && "value" in property) stack[stack.length] = property.value;
    }
  }
  return bytes;
};
// The builtins as the shim left them: each program of a session starts with them restored, so what one program did
// to a prototype or a builtin global can break neither the next program nor its gg. Not again as it ends: restoring
// allocates, and a collection between a rejection nothing handles and the end of the program's task drops the
// rejection (isolated-vm holds unhandled rejections weakly), which would then go unreported.
const pristine = [];
const snapshot = (target) => {
  if (target === null || (typeof target !== "object" && typeof target !== "function") || apply(setHas, seenBuiltins, [target])) return;
  apply(setAdd, seenBuiltins, [target]);
  const names = ownKeys(target), descriptors = [];
  // Without a prototype, so defining one again reads its own fields alone, whatever a program puts on Object.prototype.
  for (let i = 0; i < names.length; i++) descriptors[i] = setPrototypeOf(getOwnPropertyDescriptor(target, names[i]), null);
  pristine[pristine.length] = { target, names, known: new SetCtor(names), descriptors, proto: getPrototypeOf(target), extensible: isExtensible(target) };
  // The global's builtins, and of every object kept its prototype chain and its constructor's prototype: not each
  // method (a function's own length and name), which would make restoring cost more than a program's start.
  for (let i = 0; i < descriptors.length; i++) {
    if ((target === globalThis || names[i] === "prototype") && "value" in descriptors[i]) snapshot(descriptors[i].value);
  }
  snapshot(getPrototypeOf(target));
};
const seenBuiltins = new SetCtor();
snapshot(globalThis);
for (const extra of [[][Symbol.iterator](), new MapCtor().entries(), new SetCtor().values(), ""[Symbol.iterator](), (function* () {})(), (async function* () {})(), async () => {}, /./[Symbol.matchAll]("")]) snapshot(extra);
// Whether a property's descriptor now is the one saved: own fields of descriptor objects alone are read, so no getter a
// program put on Object.prototype runs.
const unchanged = (now, was) => {
  if (now === undefined || now.enumerable !== was.enumerable || now.configurable !== was.configurable) return false;
  if (apply(hasOwn, was, ["get"])) return apply(hasOwn, now, ["get"]) && now.get === was.get && now.set === was.set;
  return apply(hasOwn, now, ["value"]) && now.value === was.value && now.writable === was.writable;
};
const restore = () => {
  for (let p = 0; p < pristine.length; p++) {
    const { target, names, known, descriptors, proto, extensible } = pristine[p];
    if (getPrototypeOf(target) !== proto) setPrototypeOf(target, proto);
    for (let i = 0; i < names.length; i++) {
      if (unchanged(getOwnPropertyDescriptor(target, names[i]), descriptors[i])) continue;
      try { defineProperty(target, names[i], descriptors[i]); } catch {}
    }
    if (target === globalThis) {
      delete globalThis.WebAssembly;
      delete globalThis.SharedArrayBuffer;
      delete globalThis.Atomics;
      continue;
    }
    const now = ownKeys(target);
    for (let i = 0; i < now.length; i++) if (!apply(setHas, known, [now[i]])) try { delete target[now[i]]; } catch {}
    if (!extensible) preventExtensions(target);
  }
};
// gg.context.state's list, made as it is called (so no getter or trap of the realm runs unasked): the names the
// realm holds beyond the shim's, and the current program's own top-level bindings that are set.
const describeRealm = () => {
  const list = [], listed = new SetCtor();
  const add = (name, get) => {
    if (list.length >= ${HELD_NAMES} || apply(setHas, listed, [name])) return;
    let value;
    try { value = get(); } catch { return; }
    apply(setAdd, listed, [name]);
    list[list.length] = record({ name, kind: kindOf(value), bytes: sizeOf(value) });
  };
  const entries = kept || [];
  for (let i = 0; i < entries.length; i++) add(entries[i][0], entries[i][1]);
  const names = ownKeys(globalThis);
  for (let i = 0; i < names.length; i++) {
    const name = names[i];
    if (typeof name !== "string" || apply(setHas, builtins, [name])) continue;
    const property = getOwnPropertyDescriptor(globalThis, name);
    add(name, () => (property.get ? property.get() : property.value));
  }
  return stringify(list);
};
// Restores the builtins between programs. Nothing of it falls between a rejection a program drops and isolated-vm's
// look for it at the end of the program's task, where the garbage of a restore started collections that lost one
// rejection in five (isolated-vm holds them weakly).
const restoreIdle = () => {
  restored = false;
  restore();
  restored = true;
};
const commit = () => {
  if (kept === null) return;
  const entries = kept;
  kept = null;
  // Calls left waiting by the program that ended are never settled.
  for (const id of keys(waiting)) delete waiting[id];
  try {
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i], name = entry[0], get = entry[1], set = entry[2];
      try { get(); } catch { continue; }
      try { defineProperty(globalThis, name, { __proto__: null, get, set, enumerable: true, configurable: true }); } catch {}
    }
  } catch {}
};`;

// gg.mcp and gg.app: their functions (call, list, ...) and, beside them, a namespace per server (and one function per
// application function) built from the host's layout, asked for again whenever the host's catalog changed. Each tool's
// function is gg.mcp.call (gg.app.call) with the names the host gave. Nothing here is named then: awaiting a namespace
// gives the namespace.
const NAMESPACES = `const spaces = { __proto__: null }, baseSpaces = { __proto__: null }, callIndex = { __proto__: null };
let spacesVersion = -1;
// The host's catalog changes only between programs: each program asks for it once, at its first use of gg.mcp or gg.app.
let spacesAsked = false;
const ProxyCtor = Proxy;
// A namespace answers a name it lacks with a function that makes the call anyway, so the host says not-found with the
// nearest names (never a TypeError); then and symbols stay undefined, so nothing here is thenable.
const calling = (space, call, hidden = []) => new ProxyCtor(space, { __proto__: null, get(object, key) {
  if (typeof key !== "string" || key === "then" || apply(hasOwn, object, [key]) || hidden.includes(key)) return object[key];
  return call(key);
} });
const mcpTool = (server, tool) => (input) => callAsync(callIndex.mcp, [server, tool, input]);
layout.forEach(([module, name], index) => { if (name === "call") callIndex[module] = index; });
// Defined, never assigned: a tool may be named __proto__.
const put = (object, key, value) => defineProperty(object, key, { __proto__: null, value, enumerable: true, writable: false, configurable: false });
const refreshSpaces = () => {
  const json = namespaces(spacesVersion);
  if (typeof json !== "string" || json === "") return;
  const next = parse(json);
  spacesVersion = next.version;
  for (const module of keys(baseSpaces)) {
    const space = { __proto__: null };
    for (const name of keys(baseSpaces[module])) put(space, name, baseSpaces[module][name]);
    if (module === "mcp") {
      for (const server of keys(next.mcp)) {
        if (apply(hasOwn, space, [server])) continue;
        const tools = { __proto__: null };
        let serverName = server;
        for (const tool of keys(next.mcp[server])) {
          const [named, toolName] = next.mcp[server][tool];
          serverName = named;
          put(tools, tool, mcpTool(named, toolName));
        }
        put(space, server, calling(freeze(tools), (tool) => mcpTool(serverName, tool), next.hidden[server] || []));
      }
    } else for (const name of next.app) put(space, name, (input) => callAsync(callIndex.app, [name, input]));
    spaces[module] = calling(freeze(space), module === "mcp" ? (server) => calling(freeze({ __proto__: null }), (tool) => mcpTool(server, tool)) : (name) => (input) => callAsync(callIndex.app, [name, input]));
  }
};
for (const module of ["mcp", "app"]) {
  if (gg[module] === undefined) continue;
  baseSpaces[module] = gg[module];
  spaces[module] = gg[module];
  delete gg[module];
  defineProperty(gg, module, { __proto__: null, get() {
    if (!spacesAsked) { spacesAsked = true; refreshSpaces(); }
    return spaces[module];
  }, enumerable: true, configurable: false });
}`;

// An isolate for one program: nothing is kept, so the builtins are not snapshotted (a third of preparing an isolate).
const FRESH = `const commit = () => {};
const restoreIdle = undefined;`;

/**
 * The shim's source, run once per isolate before the program with $0 to $6: the two dispatchers (one starts the calls
 * that wait, one makes those that do not), the console callback, the gg functions' layout as JSON, the result limit in
 * characters, the callback told what the realm holds after each program of a session that keeps state (null in an
 * isolate for one program), and the one that gives the external tools' namespaces. It captures what it needs, then
 * never exposes the dispatchers. It returns the function that settles a waiting call, and the one that restores the
 * builtins between a session's programs in an isolate that `keeps` state (REALM; undefined in one for a single program).
 */
const shim = (keeps: boolean): string => `'use strict';
const dispatch = $0, dispatchSync = $1, emit = $2, layout = JSON.parse($3), resultLimit = $4, held = $5, namespaces = $6;
const { stringify, parse } = JSON;
const { freeze, defineProperty, getPrototypeOf, setPrototypeOf, getOwnPropertyDescriptor, keys, isExtensible, preventExtensions } = Object;
const ownKeys = Reflect.ownKeys, isArray = Array.isArray, functionText = Function.prototype.toString;
const SetCtor = Set, setHas = Set.prototype.has, setAdd = Set.prototype.add, MapCtor = Map, ArrayBufferView = ArrayBuffer.isView;
const sizeGetter = getOwnPropertyDescriptor(Set.prototype, "size").get, mapSizeGetter = getOwnPropertyDescriptor(Map.prototype, "size").get;
const { construct, apply } = Reflect;
const hasOwn = Object.prototype.hasOwnProperty;
const sliceString = String.prototype.slice;
const PromiseCtor = Promise, promiseThen = Promise.prototype.then;
const ErrorCtor = Error, StringCtor = String, RangeErrorCtor = RangeError, TypeErrorCtor = TypeError;
const fixed = (value) => ({ value, writable: false, enumerable: false, configurable: false });
// Memory that isolated-vm's allocator does not count: WebAssembly memories, growable SharedArrayBuffers and
// resizable ArrayBuffers. Programs get none of them, so the heap limit bounds everything they can hold.
for (const name of ["WebAssembly", "SharedArrayBuffer", "Atomics"]) delete globalThis[name];
// Puts Replacement where builtin Native was: Native's prototype object becomes its, naming it as constructor.
const replaceBuiltin = (name, Native, Replacement) => {
  defineProperty(Replacement, "prototype", fixed(Native.prototype));
  defineProperty(Native.prototype, "constructor", { __proto__: null, value: Replacement, writable: true, enumerable: false, configurable: true });
  defineProperty(globalThis, name, { __proto__: null, value: Replacement, writable: true, enumerable: false, configurable: true });
};
const NativeArrayBuffer = ArrayBuffer;
const FixedArrayBuffer = function ArrayBuffer(length, options) {
  if (new.target === undefined) throw new TypeErrorCtor("Constructor ArrayBuffer requires 'new'");
  if (options !== undefined && options !== null && options.maxByteLength !== undefined) {
    throw new RangeErrorCtor("Resizable ArrayBuffers are not available to gg programs; allocate the size you need");
  }
  return construct(NativeArrayBuffer, [length], new.target);
};
setPrototypeOf(FixedArrayBuffer, getPrototypeOf(NativeArrayBuffer));
defineProperty(FixedArrayBuffer, "isView", { value: NativeArrayBuffer.isView, writable: true, configurable: true });
defineProperty(FixedArrayBuffer, Symbol.species, { get() { return this; }, configurable: true });
replaceBuiltin("ArrayBuffer", NativeArrayBuffer, FixedArrayBuffer);
const syncOptions = freeze({ __proto__: null, arguments: freeze({ __proto__: null, copy: true }), result: freeze({ __proto__: null, copy: true }) });
const format = (value) => {
  if (typeof value === "string") return value;
  try {
    if (value instanceof ErrorCtor) return StringCtor(value.stack || value.message);
    const json = stringify(value);
    return json === undefined ? StringCtor(value) : json;
  } catch {
    try { return StringCtor(value); } catch { return "[unprintable]"; }
  }
};
const encode = (args) => {
  while (args.length > 0 && args[args.length - 1] === undefined) args.length--;
  return stringify(args);
};
// Why arguments could not be turned into JSON (a BigInt, a cycle, nesting past the stack, a getter or a Proxy trap
// that throws): the host answers it as any bad argument, invalid-argument. Cut here, so a huge message never crosses.
const unsent = (error) => {
  let text;
  try { text = error instanceof ErrorCtor ? StringCtor(error.name) + ": " + StringCtor(error.message) : "a getter or trap threw " + format(error); }
  catch { text = "a getter or trap threw a value that cannot be described"; }
  return apply(sliceString, text, [0, ${UNSENT_CHARS}]);
};
const send = (index, args) => {
  try { return [index, encode(args)]; } catch (error) { return [index, null, unsent(error)]; }
};
const answer = (reply) => {
  if (reply.ok) return reply.value;
  const error = new ErrorCtor(reply.error.message);
  defineProperty(error, "code", { __proto__: null, value: reply.error.code, enumerable: true });
  throw error;
};
// Calls that finish on the host without waiting are made inline (a few microseconds); the rest cross as promises.
// A call the host cannot decide inline (its approval waits on a hook or a person) is made again as a promise.
const callSync = async (index, args) => {
  const reply = parse(dispatchSync.applySync(undefined, send(index, args), syncOptions));
  return reply.defer === true ? callAsync(index, args) : answer(reply);
};
// A call that waits is started by a synchronous call too, under a number; the host settles it by that number with a
// synchronous call into this isolate (settle), so the program goes on in the host's own thread: no hop between threads
// each way, which is most of a fast call's time. "" from the host means started; anything else is the reply already.
const waiting = { __proto__: null };
let nextWait = 0;
const finish = (resolve, reject, reply) => {
  try { resolve(answer(parse(reply))); } catch (error) { reject(error); }
};
const callAsync = (index, args) => new PromiseCtor((resolve, reject) => {
  const id = nextWait++;
  const sent = send(index, args);
  const reply = dispatch.applySync(undefined, [id, sent[0], sent[1], sent[2]], syncOptions);
  if (reply === "") waiting[id] = record({ resolve, reject });
  else finish(resolve, reject, reply);
});
// A reply the host gives after its program ended (a session's realm lives on) never comes: the host drops it.
const settle = (id, reply) => {
  const wait = waiting[id];
  if (wait === undefined) return;
  delete waiting[id];
  finish(wait.resolve, wait.reject, reply);
};
const gg = {};
layout.forEach(([module, name, sync], index) => {
  gg[module] = gg[module] || {};
  // gg.context.state answers with what the guest describes just before the call (see describeRealm).
  const call = held !== null && module === "context" && name === "state" ? (...args) => { held(describeRealm()); return callSync(index, args); } : (...args) => callSync(index, args);
  gg[module][name] = sync ? call : (...args) => callAsync(index, args);
});
for (const module of Object.keys(gg)) freeze(gg[module]);
${NAMESPACES}
defineProperty(globalThis, "gg", fixed(freeze(gg)));
const logger = (level) => (...values) => {
  let text = "";
  for (let i = 0; i < values.length && text.length <= ${LOG_ENTRY_CHARS}; i++) text += (i ? " " : "") + format(values[i]);
  emit(level, text.length > ${LOG_ENTRY_CHARS} ? text.slice(0, ${LOG_ENTRY_CHARS}) + " [entry cut at ${LOG_ENTRY_CHARS} characters]" : text);
};
defineProperty(globalThis, "console", fixed(freeze({ log: logger(0), info: logger(1), warn: logger(2), error: logger(3), debug: logger(4) })));
// Messages to the host are built from null-prototype objects and strings, so no toJSON a program installs can
// rewrite them; the host checks them again all the same.
const record = (fields) => setPrototypeOf(fields, null);
const describe = (thrown) => {
  try {
    if (thrown instanceof ErrorCtor) {
      const code = typeof thrown.code === "string" ? thrown.code : "";
      return record({ name: StringCtor(thrown.name), message: StringCtor(thrown.message), code, stack: typeof thrown.stack === "string" ? thrown.stack : "" });
    }
    return record({ name: "Error", message: "the program threw a value that is not an Error: " + format(thrown), code: "", stack: "" });
  } catch {
    return record({ name: "Error", message: "the program threw a value that cannot be described", code: "", stack: "" });
  }
};
const failure = (code, message) => stringify(record({ ok: false, error: record({ code, message }) }));
const settled = (value) => {
  let json;
  try { json = stringify(value === undefined ? null : value); } catch (error) {
    // The reason is cut here, so a huge one can neither cross nor pass for a result over the limit.
    return failure("invalid-result", "The returned value cannot be turned into JSON (" + apply(sliceString, format(error && error.message), [0, ${UNSENT_CHARS}]) + "); return plain data: strings, numbers, booleans, arrays and objects without cycles");
  }
  if (typeof json !== "string") json = "null";
  if (json.length > resultLimit) {
    return failure("result-too-large", "The returned value is " + json.length + " characters as JSON, over the " + resultLimit + "-character result limit; return a summary, or write the data to a file with gg.files.writeFile");
  }
  return '{"ok":true,"result":' + json + "}";
};
const threw = (thrown) => stringify(record({ ok: false, thrown: describe(thrown) }));
${keeps ? REALM : FRESH}
// The program's promise is followed with the then captured above, never one the program can replace.
defineProperty(globalThis, "__gg_settle", fixed((program) => new PromiseCtor((resolve) => {
  apply(promiseThen, program, [
    (value) => {
      let out;
      try { out = settled(value); } catch (error) { out = threw(error); }
      commit();
      spacesAsked = false;
      resolve(out);
    },
    (thrown) => {
      const out = threw(thrown);
      commit();
      spacesAsked = false;
      resolve(out);
    },
  ]);
})));
// What the host calls: each waiting call's settle, and between a session's programs, restoreIdle.
return [settle, restoreIdle];
`;

/** The shim of an isolate that runs one program. */
export const SHIM = shim(false);
/** The shim of a session's realm, whose programs keep their top-level bindings. */
export const REALM_SHIM = shim(true);
