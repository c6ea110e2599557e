// Hash routing: every view has its own URL (#/dags/<file>?tab=spec), which
// works behind any base path because the server never sees the fragment.
import { useEffect, useState } from "preact/hooks";

export interface Route {
  parts: string[];
  query: URLSearchParams;
}

export function currentRoute(): Route {
  const h = location.hash.replace(/^#\/?/, "");
  const q = h.indexOf("?");
  const path = q >= 0 ? h.slice(0, q) : h;
  const query = new URLSearchParams(q >= 0 ? h.slice(q + 1) : "");
  const parts = path.split("/").filter((p) => p !== "").map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  return { parts, query };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const on = () => setRoute(currentRoute());
    window.addEventListener("hashchange", on);
    return () => window.removeEventListener("hashchange", on);
  }, []);
  return route;
}

// "#/a/b?x=1" from parts and query values (empty values are left out).
export function href(parts: string[], query?: Record<string, string | number | undefined | null>): string {
  let h = "#/" + parts.map(encodeURIComponent).join("/");
  if (query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
    const s = q.toString();
    if (s) h += "?" + s;
  }
  return h;
}

export function navigate(to: string, replace = false) {
  if (replace) history.replaceState(null, "", to);
  else location.hash = to.replace(/^#/, "");
  if (replace) window.dispatchEvent(new HashChangeEvent("hashchange"));
}
