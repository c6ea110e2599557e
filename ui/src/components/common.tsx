// Small shared pieces: status badges, cards, the toast, error boxes.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

export function Badge({ label, cls }: { label: string; cls?: string }) {
  return <span class={"badge " + (cls || label)}>{String(label).replace(/_/g, " ")}</span>;
}

export function StatusBadge({ run }: { run?: { statusLabel?: string } | null }) {
  if (!run) return <span class="muted">never run</span>;
  return <Badge label={run.statusLabel || "not_started"} />;
}

export function Card({ label, value, sub }: { label: string; value: ComponentChildren; sub?: string }) {
  return (
    <div class="card">
      <div class="label">{label}</div>
      <div class="value">{value}</div>
      <div class="sub" title={sub}>{sub}</div>
    </div>
  );
}

export function ErrorBox({ error }: { error: Error | string | null | undefined }) {
  if (!error) return null;
  return <div class="error-box">{typeof error === "string" ? error : error.message}</div>;
}

export function Loading() {
  return <div class="empty">Loading…</div>;
}

// One toast at a time, shown by toast() from anywhere.
type ToastState = { text: string; error: boolean; id: number } | null;
let setToastState: ((t: ToastState) => void) | null = null;
let toastId = 0;

export function toast(text: string, error = false) {
  setToastState?.({ text, error, id: ++toastId });
}

export function Toast() {
  const [t, setT] = useState<ToastState>(null);
  useEffect(() => {
    setToastState = setT;
    return () => {
      setToastState = null;
    };
  }, []);
  useEffect(() => {
    if (!t) return;
    const h = window.setTimeout(() => setT(null), t.error ? 6000 : 3000);
    return () => window.clearTimeout(h);
  }, [t]);
  return (
    <div id="toast" class={"toast" + (t?.error ? " error" : "")} role="status" hidden={!t}>
      {t?.text}
    </div>
  );
}

export function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose();
    };
    window.addEventListener("keydown", key);
    return () => window.removeEventListener("keydown", key);
  }, [onClose]);
  return (
    <div class="modal-back" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="modal" role="dialog" aria-label={title}>
        <div class="page-head">
          <h2>{title}</h2>
          <span class="spacer" />
          <button class="icon" aria-label="Close" onClick={onClose}>×</button>
        </div>
        {children}
      </div>
    </div>
  );
}
