// Loading an API answer into a page: the answer, or the sentence saying why there is none.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { get } from "./api.ts";

/** The answer of GET `path` once it came, or its refusal; refetched when `path` changes. */
export function useApi<T>(path: string): { data?: T; error?: string } {
  const [state, setState] = useState<{ data?: T; error?: string; path?: string }>({});
  useEffect(() => {
    let current = true;
    get<T>(path).then(
      (data) => current && setState({ data, path }),
      (error: Error) => current && setState({ error: error.message, path }),
    );
    return () => {
      current = false;
    };
  }, [path]);
  return state.path === path ? state : {};
}

/** `children(data)` once loaded; a line while loading or when it failed. */
export function Loaded<T>(props: { state: { data?: T; error?: string }; children: (data: T) => ComponentChildren }) {
  if (props.state.error !== undefined) return <p class="bad">{props.state.error}</p>;
  if (props.state.data === undefined) return <p class="muted">Loading…</p>;
  return <>{props.children(props.state.data)}</>;
}
