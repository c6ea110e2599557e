// The graph of a DAG's steps and dependencies, laid out by dagre (left to
// right or top to bottom), drawn as SVG and colored by each step's status.
// A click on a step calls onSelect with its name; a sub-DAG step whose run
// started (`child`: the link to the child run) opens that run instead.
import { graphlib, layout } from "@dagrejs/dagre";
import { useMemo, useState } from "preact/hooks";

export interface GraphStep {
  name: string;
  depends?: string[];
  status?: string; // statusLabel; not_started when absent
  child?: string; // href of the sub-DAG run this step started
}

const NODE_W = 170, NODE_H = 40;

interface Laid {
  width: number;
  height: number;
  nodes: { name: string; x: number; y: number; status: string; child?: string }[];
  edges: { from: string; to: string; points: { x: number; y: number }[] }[];
}

function lay(steps: GraphStep[], dir: "LR" | "TB"): Laid {
  const g = new graphlib.Graph();
  g.setGraph({ rankdir: dir, nodesep: 24, ranksep: 56, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  const names = new Set(steps.map((s) => s.name));
  for (const s of steps) g.setNode(s.name, { width: NODE_W, height: NODE_H });
  for (const s of steps) for (const d of s.depends || []) if (names.has(d)) g.setEdge(d, s.name);
  layout(g);
  const graph = g.graph();
  return {
    width: graph.width || 0,
    height: graph.height || 0,
    nodes: steps.map((s) => {
      const n = g.node(s.name);
      return { name: s.name, x: n.x, y: n.y, status: s.status || "not_started", child: s.child };
    }),
    edges: g.edges().map((e) => ({ from: e.v, to: e.w, points: g.edge(e).points || [] })),
  };
}

function clip(text: string, max: number) {
  return text.length > max ? text.slice(0, max - 1) + "…" : text;
}

export function Graph({ steps, selected, onSelect }: { steps: GraphStep[]; selected?: string | null; onSelect?: (name: string) => void }) {
  const [dir, setDir] = useState<"LR" | "TB">("LR");
  const [zoom, setZoom] = useState(1);
  const key = JSON.stringify(steps.map((s) => [s.name, s.depends || [], s.status || "", s.child || ""])) + dir;
  const laid = useMemo(() => lay(steps, dir), [key]);
  if (!steps.length) return <div class="empty">No steps.</div>;
  return (
    <div class="graph-box">
      <div class="graph-tools">
        <span class="seg-tabs">
          <button class={dir === "LR" ? "on" : ""} onClick={() => setDir("LR")} title="left to right">→</button>
          <button class={dir === "TB" ? "on" : ""} onClick={() => setDir("TB")} title="top to bottom">↓</button>
        </span>
        <span class="seg-tabs">
          <button onClick={() => setZoom(Math.max(0.3, zoom / 1.25))} aria-label="Zoom out">−</button>
          <button onClick={() => setZoom(1)} aria-label="Reset zoom">{Math.round(zoom * 100)}%</button>
          <button onClick={() => setZoom(Math.min(3, zoom * 1.25))} aria-label="Zoom in">+</button>
        </span>
      </div>
      <div class="graph-scroll">
        <svg class="graph" width={laid.width * zoom} height={laid.height * zoom} viewBox={`0 0 ${laid.width} ${laid.height}`}
          role="img" aria-label="Graph of the steps">
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" class="arrow" />
            </marker>
          </defs>
          {laid.edges.map((e) => (
            <path key={e.from + "->" + e.to} class="edge" data-from={e.from} data-to={e.to} marker-end="url(#arrow)"
              d={e.points.map((p, i) => (i ? "L" : "M") + p.x.toFixed(1) + " " + p.y.toFixed(1)).join(" ")} />
          ))}
          {laid.nodes.map((n) => {
            const open = () => (n.child ? (location.hash = n.child.replace(/^[^#]*/, "")) : onSelect?.(n.name));
            return (
              <g key={n.name} class={"node " + n.status + (selected === n.name ? " selected" : "") + (n.child ? " sub" : "")}
                data-step={n.name} data-status={n.status} data-child={n.child}
                transform={`translate(${n.x - NODE_W / 2},${n.y - NODE_H / 2})`}
                onClick={open} tabIndex={0} onKeyDown={(e) => (e.key === "Enter" || e.key === " ") && open()}>
                <title>{n.name + " (" + n.status.replace(/_/g, " ") + ")" + (n.child ? ": opens the sub-DAG run" : "")}</title>
                <rect width={NODE_W} height={NODE_H} rx="8" />
                <circle cx="16" cy={NODE_H / 2} r="5" class="dot" />
                <text x="30" y={NODE_H / 2 + 4}>{clip(n.name, n.child ? 16 : 18)}</text>
                {n.child && <text x={NODE_W - 18} y={NODE_H / 2 + 4} class="sub-mark">↗</text>}
              </g>
            );
          })}
        </svg>
      </div>
    </div>
  );
}
