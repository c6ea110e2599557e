// A waiting approval step (`type: hitl`): its prompt, a field per input
// (required ones marked), Approve (POST .../steps/<step>/approve {inputs})
// and Reject (POST .../steps/<step>/reject {reason}).
import { useState } from "preact/hooks";
import { enc, post } from "../api";
import { toast } from "./common";
import type { NodeInfo } from "./StepsTable";
import { useCanExecute } from "../auth";

interface HitlConfig { prompt?: string; input?: string[]; required?: string[] }

export function ApprovalPanel({ base, node, reload }: { base: string; node: NodeInfo; reload: () => void }) {
  const step = node.step?.name || "";
  const cfg = ((node.step as any)?.executorConfig?.config || {}) as HitlConfig;
  const inputs = cfg.input || [];
  const required = new Set(cfg.required || []);
  const [values, setValues] = useState<Record<string, string>>({});
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const canExecute = useCanExecute(); // operator and up approve or reject
  const act = async (approve: boolean) => {
    setBusy(true);
    try {
      if (approve) {
        const given: Record<string, string> = {};
        for (const k of inputs) if (values[k] !== undefined && values[k] !== "") given[k] = values[k];
        await post(base + "/steps/" + enc(step) + "/approve", { inputs: given });
        toast("Approved " + step);
      } else {
        await post(base + "/steps/" + enc(step) + "/reject", reason ? { reason } : {});
        toast("Rejected " + step);
      }
      reload();
    } catch (e) {
      toast((e as Error).message, true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="panel approval" data-approval={step}>
      <h2>Step {step} waits for approval</h2>
      {cfg.prompt && <p class="prompt">{cfg.prompt}</p>}
      {inputs.map((k) => (
        <label key={k} class="field">
          <span class="mono">{k}{required.has(k) ? " *" : ""}</span>
          <input name={"input-" + k} value={values[k] || ""} onInput={(e) => setValues({ ...values, [k]: (e.target as HTMLInputElement).value })} />
        </label>
      ))}
      <label class="field">
        <span>Reason to reject</span>
        <input name="reject-reason" value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
      </label>
      {canExecute && <div class="form-actions">
        <button class="primary" data-act="approve" disabled={busy} onClick={() => act(true)}>Approve</button>
        <button class="danger" data-act="reject" disabled={busy} onClick={() => act(false)}>Reject</button>
      </div>}
    </div>
  );
}
