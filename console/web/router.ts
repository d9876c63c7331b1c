// The page's routes: the part after "#", e.g. "#/models/openai%2Fgpt-4o" → ["models", "openai/gpt-4o"].
import { useEffect, useState } from "preact/hooks";

/** The current route's segments, decoded. */
export function useRoute(): string[] {
  const read = (): string[] => location.hash.replace(/^#\/?/, "").split("/").filter((part) => part !== "").map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const changed = (): void => setRoute(read());
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return route;
}

/** The href of a route. */
export const href = (...parts: string[]): string => `#/${parts.map(encodeURIComponent).join("/")}`;
