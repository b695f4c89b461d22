// Small accessible building blocks: a labelled field whose API problem is shown under it
// (and read with it: aria-describedby), a screen heading that takes the focus when the screen
// opens, and an alert for a refusal that names no field.

import type { ComponentChildren, JSX } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import type { Refusal } from "./api";

/** An API message as a sentence for a player: its first letter a capital, a final full stop
 * (the API's `detail` and field messages are clauses: « doit contenir au moins 3 caractères »);
 * several (`; `-joined) each made one. The app's own sentences pass unchanged. */
export function sentence(message: string): string {
  return message
    .split("; ")
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => {
      const head = part.charAt(0).toLocaleUpperCase() + part.slice(1);
      return /[.!?…:]$/.test(head) ? head : `${head}.`;
    })
    .join(" ");
}

/** The app's name, at the end of every screen's document title. */
const APP_NAME = "Num Project";

/** The document's title from the screen's headings: its part's (the sheet's « Manche 2 »),
 * else the screen's h1, then the app's name: « Manche 2 — Num Project ». A screen that
 * names the whole app (the home) says its own `docTitle`. */
function retitle(): void {
  const main = document.getElementById("main");
  if (!main) return;
  const own = main.querySelector<HTMLElement>("[data-doc-title]")?.dataset["docTitle"];
  const part = main.querySelector<HTMLElement>("h2[data-title-part]") ?? main.querySelector<HTMLElement>("h1");
  const words = part?.textContent?.replace(/\s+/g, " ").trim();
  const title = own ?? (words ? `${words} — ${APP_NAME}` : null);
  if (title && document.title !== title) document.title = title;
}

/** The heading that takes the focus when its screen (or, `level` 2, its part of a screen
 * titled above it: the sheet's round) opens; it names the page too (`document.title`). */
export function Heading({ children, level = 1, docTitle }: { children: ComponentChildren; level?: 1 | 2; docTitle?: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  // a screen shown in place of another (the sheet once loaded) may keep this component and
  // swap its element (h1 → h2): the new one takes the focus too
  useEffect(() => {
    ref.current?.focus();
  }, [level]);
  // after every render: the words may change (the round, the language)
  useEffect(retitle);
  // a part gone (the sheet's round saved): the screen's title again
  useEffect(() => () => void setTimeout(retitle, 0), []);
  return level === 1 ? (
    <h1 ref={ref} tabIndex={-1} data-doc-title={docTitle}>
      {children}
    </h1>
  ) : (
    <h2 ref={ref} tabIndex={-1} class="focus-title" data-title-part="">
      {children}
    </h2>
  );
}

interface FieldProps {
  label: string;
  error?: string | undefined;
  /** what the field takes, said before any refusal (and read with the field) */
  hint?: string | undefined;
  children: (props: { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean }) => JSX.Element;
}

/** A label, the control `children` renders with the ids it is given, its hint and its
 * problem (both its description: the rule first, then what broke it). */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter((one) => one !== null).join(" ");
  const described = {
    ...(describedBy ? { "aria-describedby": describedBy } : {}),
    ...(error ? { "aria-invalid": true } : {}),
  };
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {hint ? (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {children({ id, ...described })}
      {error ? (
        <p class="field-error" id={errorId}>
          {sentence(error)}
        </p>
      ) : null}
    </div>
  );
}

/** What a refusal says that the form's fields do not: never a raw field name. A message of a
 * field the form shows (`shown`) is already under it and is not repeated; a message of a
 * field it does not show is said without its name; the detail is said only for what it adds to
 * the fields' messages (its "field : message" parts are dropped). Null when nothing is left. */
export function Problem({ refusal, shown }: { refusal: Refusal | null; shown: readonly string[] }) {
  if (!refusal) return null;
  const messages = Object.values(refusal.fields)
    .flatMap((message) => message.split("; "))
    .map((message) => message.trim())
    .filter((message) => message.length > 0);
  const elsewhere = Object.entries(refusal.fields)
    .filter(([field]) => !shown.includes(field))
    .map(([, message]) => message);
  const rest = refusal.detail
    .split("; ")
    .map((part) => part.trim())
    .filter((part) => part.length > 0 && !messages.some((message) => part.includes(message)));
  const detail = sentence(rest.join("; "));
  if (!detail && elsewhere.length === 0) return null;
  return (
    <div class="problem" role="alert">
      {detail ? <p>{detail}</p> : null}
      {elsewhere.length > 0 ? (
        <ul>
          {elsewhere.map((message, i) => (
            <li key={i}>{sentence(message)}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export type Navigate = (path: string) => void;

/** A link inside the app: opens its screen without reloading the page. */
export function Link({ href, navigate, children }: { href: string; navigate: Navigate; children: ComponentChildren }) {
  return (
    <a
      href={href}
      onClick={(event) => {
        if (event.ctrlKey || event.metaKey || event.shiftKey) return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}

/** A form's request: its refusal and whether it is under way. `send(work)` clears the last
 * refusal, marks the form busy while `work` runs, and says `networkError` when the request
 * never got an answer (a refusal the API sent, `work` shows itself with `setProblem`). */
export function useRequest(networkError: string) {
  const [problem, setProblem] = useState<Refusal | null>(null);
  const [busy, setBusy] = useState(false);
  async function send(work: () => Promise<void>): Promise<void> {
    setBusy(true);
    setProblem(null);
    try {
      await work();
    } catch {
      setProblem({ detail: networkError, fields: {} });
    } finally {
      setBusy(false);
    }
  }
  return { problem, setProblem, busy, send };
}

/** « Fais défiler le tableau de côté » under a `.scroll` table wider than the screen (its
 * previous sibling), hidden when it fits: the edge shadow alone was too faint to be seen. */
export function ScrollCue({ text }: { text: string }) {
  const ref = useRef<HTMLParagraphElement>(null);
  const [wide, setWide] = useState(false);
  useEffect(() => {
    const box = ref.current?.previousElementSibling;
    if (!box) return;
    const measure = () => setWide(box.scrollWidth > box.clientWidth + 1);
    measure();
    const watch = new ResizeObserver(measure);
    watch.observe(box);
    const table = box.firstElementChild;
    if (table) watch.observe(table);
    return () => watch.disconnect();
  }, []);
  return (
    <p ref={ref} class="scroll-cue" hidden={!wide} aria-hidden="true">
      {text}
    </p>
  );
}
