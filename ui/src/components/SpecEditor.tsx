// A DAG's YAML in CodeMirror 6 (YAML highlighting, line numbers, search,
// undo). Loader errors of the form "<file>:<line>:<col>: message" are shown in
// place as diagnostics; others only in the list under the editor.
import { yaml } from "@codemirror/lang-yaml";
import { EditorState } from "@codemirror/state";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { EditorView, basicSetup } from "codemirror";
import { useEffect, useRef } from "preact/hooks";

export function diagnosticsOf(doc: EditorState["doc"], errors: string[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const err of errors) {
    const m = /^[^:\s]*:(\d+):(\d+):\s*(.*)$/s.exec(err);
    if (!m) continue;
    const lineNo = Math.min(Math.max(1, Number(m[1])), doc.lines);
    const line = doc.line(lineNo);
    const from = Math.min(line.from + Math.max(0, Number(m[2]) - 1), line.to);
    out.push({ from, to: Math.max(from, line.to), severity: "error", message: m[3] });
  }
  return out;
}

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--panel)", color: "var(--text)", fontSize: "13px" },
  ".cm-gutters": { backgroundColor: "var(--panel-2)", color: "var(--muted)", borderRight: "1px solid var(--border)" },
  ".cm-activeLine, .cm-activeLineGutter": { backgroundColor: "var(--hover)" },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--text)" },
  ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" },
});

export function SpecEditor({ value, readOnly, errors, onChange }: {
  value: string; readOnly: boolean; errors: string[]; onChange: (text: string) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup, yaml(), lintGutter(), theme,
          EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) changed.current(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [readOnly]);

  // A new text from outside (a reload after save) replaces the document.
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== value) v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    const v = view.current;
    if (v) v.dispatch(setDiagnostics(v.state, diagnosticsOf(v.state.doc, errors)));
  }, [errors, value]);

  return <div class="spec-editor" ref={host} />;
}
