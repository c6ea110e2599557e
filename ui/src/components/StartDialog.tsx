// Start (or enqueue) a DAG with a form built from its `params`: a field per
// named parameter (NAME=default) and per positional one ($1, $2, ...), the
// defaults filled in, and an optional run ID.
import { useState } from "preact/hooks";
import { enc, post } from "../api";
import { Modal, toast } from "./common";

export interface ParamField {
  name: string; // "" for a positional parameter
  value: string;
}

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && ((t[0] === '"' && t.endsWith('"')) || (t[0] === "'" && t.endsWith("'")))) return t.slice(1, -1);
  return t;
}

export function paramFields(params: string[] | null | undefined): ParamField[] {
  return (params || []).map((p) => {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(p);
    return m ? { name: m[1], value: unquote(m[2]) } : { name: "", value: unquote(p) };
  });
}

function quote(v: string): string {
  return '"' + v.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
}

// The params string of the start request: NAME="value" for named ones,
// "value" for positional ones, in the DAG's order.
export function paramsString(fields: ParamField[]): string {
  return fields.map((f) => (f.name ? f.name + "=" + quote(f.value) : quote(f.value))).join(" ");
}

export function StartDialog({ file, params, onClose, onStarted }: {
  file: string; params: string[] | null | undefined; onClose: () => void; onStarted?: (runId: string) => void;
}) {
  const [fields, setFields] = useState<ParamField[]>(() => paramFields(params));
  const [runId, setRunId] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const submit = async (enqueue: boolean) => {
    setBusy(true);
    setError("");
    try {
      const body: Record<string, string> = {};
      if (fields.length) body.params = paramsString(fields);
      if (runId.trim()) body.dagRunId = runId.trim();
      const res = await post<{ dagRunId?: string }>("/dags/" + enc(file) + (enqueue ? "/enqueue" : "/start"), body);
      toast((enqueue ? "Enqueued " : "Started ") + file + (res.dagRunId ? " (" + res.dagRunId + ")" : ""));
      onClose();
      if (res.dagRunId) onStarted?.(res.dagRunId);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  let positional = 0;
  return (
    <Modal title={"Start " + file} onClose={onClose}>
      <form class="start-form" onSubmit={(e) => { e.preventDefault(); submit(false); }}>
        {fields.length === 0 && <p class="muted">This DAG has no parameters.</p>}
        {fields.map((f, i) => {
          const label = f.name || "$" + ++positional;
          return (
            <label key={i} class="field">
              <span class="mono">{label}</span>
              <input name={"param-" + label} value={f.value}
                onInput={(e) => {
                  const next = fields.slice();
                  next[i] = { ...f, value: (e.target as HTMLInputElement).value };
                  setFields(next);
                }} />
            </label>
          );
        })}
        <label class="field">
          <span>Run ID <span class="muted">(optional)</span></span>
          <input name="dagRunId" value={runId} placeholder="generated" onInput={(e) => setRunId((e.target as HTMLInputElement).value)} />
        </label>
        {error && <div class="error-box">{error}</div>}
        <div class="form-actions">
          <button type="submit" class="primary" data-act="confirm-start" disabled={busy}>Start</button>
          <button type="button" data-act="confirm-enqueue" disabled={busy} onClick={() => submit(true)}>Enqueue</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
    </Modal>
  );
}
