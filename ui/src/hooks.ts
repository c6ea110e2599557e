// usePoll: loads a page's data and reloads it every refreshMs while the page
// is shown; late answers of an older load are dropped. With `liveFilter`
// the page follows the live updates stream (live.ts) instead: while it is
// live, an event the filter accepts reloads the page (at most every
// LIVE_DEBOUNCE_MS) and the timer only runs every LIVE_SAFETY_MS.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { config } from "./config";
import { isLive, LIVE_SAFETY_MS, onLiveChange, subscribe, type LiveEvent } from "./live";

const LIVE_DEBOUNCE_MS = 250;

export interface Poll<T> {
  data: T | undefined;
  error: Error | null;
  reload: () => void;
}

export function usePoll<T>(
  load: () => Promise<T>,
  deps: unknown[],
  intervalMs = config.refreshMs,
  liveFilter?: (ev: LiveEvent) => boolean,
): Poll<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | null>(null);
  const gen = useRef(0);
  const timer = useRef<number | undefined>(undefined);
  const loadRef = useRef(load);
  loadRef.current = load;
  const filterRef = useRef(liveFilter);
  filterRef.current = liveFilter;
  const following = liveFilter !== undefined && intervalMs > 0;

  const run = useCallback(() => {
    const mine = ++gen.current;
    window.clearTimeout(timer.current);
    loadRef.current().then(
      (d) => {
        if (mine !== gen.current) return;
        setData(d);
        setError(null);
      },
      (e) => {
        if (mine !== gen.current) return;
        setError(e instanceof Error ? e : new Error(String(e)));
      },
    ).then(() => {
      if (mine === gen.current && intervalMs > 0) {
        timer.current = window.setTimeout(run, following && isLive() ? LIVE_SAFETY_MS : intervalMs);
      }
    });
  }, [intervalMs, following]);

  // Live: reload on a matching event (debounced); back to the interval when
  // the stream goes down.
  useEffect(() => {
    if (!following) return;
    let pending: number | undefined;
    const unsub = subscribe((ev) => {
      if (filterRef.current && !filterRef.current(ev)) return;
      if (pending === undefined) pending = window.setTimeout(() => { pending = undefined; run(); }, LIVE_DEBOUNCE_MS);
    });
    const unstate = onLiveChange((on) => { if (!on) run(); });
    return () => {
      unsub();
      unstate();
      window.clearTimeout(pending);
    };
  }, [following, run]);

  // A layout effect, so the first request leaves as soon as the page has
  // rendered: a plain effect waits for the next frame, which Preact bounds
  // by a 100 ms timer (a headless or background tab may draw no frame).
  useLayoutEffect(() => {
    setData(undefined);
    setError(null);
    run();
    return () => {
      gen.current++;
      window.clearTimeout(timer.current);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  return { data, error, reload: run };
}
