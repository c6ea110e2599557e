// Search across DAG specs (GET /dags/search?q=): each DAG whose YAML holds
// the text, with the matching lines in context; a click opens its spec.
import { useState } from "preact/hooks";
import { enc, get } from "../api";
import { ErrorBox, Loading } from "../components/common";
import { usePoll } from "../hooks";
import { href, navigate, type Route } from "../router";

interface Match { line: string; lineNumber: number; startLine: number }
interface Result { name: string; dag?: { name?: string; description?: string }; matches?: Match[] }

export function SearchPage({ route }: { route: Route }) {
  const q = route.query.get("q") || "";
  const [text, setText] = useState(q);
  const poll = usePoll(() => (q ? get("/dags/search?q=" + enc(q)) : Promise.resolve({ results: [] })), [q], 0);
  const results = (poll.data?.results || []) as Result[];
  return (
    <>
      <div class="page-head"><h1>Search</h1></div>
      <form class="filters" onSubmit={(e) => { e.preventDefault(); navigate(href(["search"], { q: text.trim() }), true); }}>
        <input id="search-q" type="search" placeholder="Text in DAG specs" value={text} size={40}
          onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        <button type="submit">Search</button>
      </form>
      <ErrorBox error={poll.error} />
      {!q ? <div class="empty">Search the YAML of every DAG.</div> : !poll.data ? (!poll.error && <Loading />) : (
        <div id="search-results">
          <p class="muted">{results.length} DAG{results.length === 1 ? "" : "s"} match “{q}”</p>
          {results.map((r) => (
            <div class="panel search-result" key={r.name} data-dag={r.name}>
              <h2><a href={href(["dags", r.name], { tab: "spec" })}>{r.dag?.name || r.name}</a>
                {r.dag?.description && <span class="muted"> — {r.dag.description}</span>}</h2>
              {(r.matches || []).map((m, i) => (
                <pre class="snippet" key={i}>{m.line.split("\n").map((l, j) => (
                  <div key={j} class={m.startLine + j === m.lineNumber ? "hit" : ""}><span class="ln">{m.startLine + j}</span>{l}</div>
                ))}</pre>
              ))}
            </div>
          ))}
        </div>
      )}
    </>
  );
}
