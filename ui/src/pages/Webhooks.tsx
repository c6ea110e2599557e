// Webhooks (#/webhooks, admins under builtin auth): every DAG's webhook
// with its token prefix, state, created and last used; Enable/Disable,
// Regenerate (the new token shown once) and Delete. Webhooks are created
// on a DAG's Webhook tab, which each row links to.
import { useState } from "preact/hooks";
import { del, enc, get, post } from "../api";
import { builtinAuth, useIsAdmin } from "../auth";
import { ErrorBox, Loading, Modal, toast } from "../components/common";
import { NotEnabled, SecretOnce } from "../components/Secret";
import type { WebhookDetails } from "../components/WebhookTab";
import { fmtTime } from "../format";
import { usePoll } from "../hooks";
import { href } from "../router";
import { NotAllowed } from "./Users";

export function WebhooksPage() {
  const isAdmin = useIsAdmin();
  if (!builtinAuth()) return <NotEnabled what="Webhook management" />;
  if (!isAdmin) return <NotAllowed />;
  return <WebhooksList />;
}

function WebhooksList() {
  const poll = usePoll(() => get<{ webhooks: WebhookDetails[] }>("/webhooks"), [], 0);
  const [token, setTokenShown] = useState<{ dag: string; token: string } | null>(null);
  const path = (w: WebhookDetails) => "/dags/" + enc(w.dagName) + "/webhook";
  const act = async (what: string, fn: () => Promise<void>) => {
    try {
      await fn();
    } catch (e) {
      toast(what + ": " + (e as Error).message, true);
    }
    poll.reload();
  };
  const hooks = poll.data?.webhooks || [];
  return (
    <>
      <div class="page-head">
        <h1>Webhooks</h1>
        <span class="muted">every DAG's webhook; create one on the DAG's Webhook tab</span>
      </div>
      <ErrorBox error={poll.error} />
      <div class="panel flush">
        {!poll.data ? (!poll.error && <Loading />) : (
          <table id="webhooks-table">
            <thead><tr><th>DAG</th><th>Token</th><th>State</th><th>Created</th><th>Last used</th><th /></tr></thead>
            <tbody>
              {hooks.length === 0 && <tr><td colSpan={6} class="empty">No webhooks. Create one from a DAG's Webhook tab.</td></tr>}
              {hooks.map((w) => (
                <tr key={w.id} data-dag={w.dagName}>
                  <td><a href={href(["dags", w.dagName], { tab: "webhook" })}>{w.dagName}</a></td>
                  <td><code>{w.tokenPrefix}…</code></td>
                  <td>
                    <label class="switch" title={w.enabled ? "enabled" : "disabled"}>
                      <input type="checkbox" checked={w.enabled} data-act="toggle-webhook"
                        onChange={() => act("Toggle", async () => { await post(path(w) + "/toggle", { enabled: !w.enabled }); })} />
                      <span />
                    </label>{" "}
                    <span class="muted state">{w.enabled ? "enabled" : "disabled"}</span>
                  </td>
                  <td>{fmtTime(w.createdAt)}</td>
                  <td>{w.lastUsedAt ? fmtTime(w.lastUsedAt) : <span class="muted">never</span>}</td>
                  <td class="actions">
                    <button data-act="regenerate-webhook" onClick={() => {
                      if (!window.confirm("Regenerate the token of " + w.dagName + "'s webhook? The current token stops working at once.")) return;
                      act("Regenerate", async () => {
                        const r = await post<{ token: string }>(path(w) + "/regenerate");
                        setTokenShown({ dag: w.dagName, token: r.token });
                      });
                    }}>Regenerate</button>
                    <button class="danger" data-act="delete-webhook" onClick={() => {
                      if (!window.confirm("Delete the webhook of " + w.dagName + "?")) return;
                      act("Delete", async () => { await del(path(w)); toast("Deleted the webhook of " + w.dagName); });
                    }}>Delete</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
      {token && (
        <Modal title={"New token for " + token.dag} onClose={() => setTokenShown(null)}>
          <SecretOnce value={token.token} what="webhook token" onDone={() => setTokenShown(null)} />
        </Modal>
      )}
    </>
  );
}
