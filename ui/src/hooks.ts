// usePoll: loads a page's data and reloads it every refreshMs while the page
// is shown; late answers of an older load are dropped.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { config } from "./config";

export interface Poll<T> {
  data: T | undefined;
  error: Error | null;
  reload: () => void;
}

export function usePoll<T>(load: () => Promise<T>, deps: unknown[], intervalMs = config.refreshMs): Poll<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | null>(null);
  const gen = useRef(0);
  const timer = useRef<number | undefined>(undefined);
  const loadRef = useRef(load);
  loadRef.current = load;

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
      if (mine === gen.current && intervalMs > 0) timer.current = window.setTimeout(run, intervalMs);
    });
  }, [intervalMs]);

  useEffect(() => {
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
