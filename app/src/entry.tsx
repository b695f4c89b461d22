// What every ruleset's "Manche N" shares, in one place: the props a sheet gives a round entry,
// the round's frame (heading, dealer, tie-break note, save button), saving with the API's
// refusal kept for the fields, the live score asked of the stateless `score-round` before
// saving, a card picker by "TYPE DE CARTE" and the list of what was picked, the new sheet's
// per-ruleset description (its options, its create body), and the deck's numbered card codes.

import { type ComponentChildren, type JSX, createContext } from "preact";
import { useContext, useEffect, useRef, useState } from "preact/hooks";
import { type Refusal, type RoundScore, type Schemas, refusal } from "./api";
import type { Texts } from "./i18n";
import { Field, Heading, Problem } from "./ui";

export type RoundBody =
  | Schemas["NumWarsRoundIn"]
  | Schemas["ClassicRoundIn"]
  | Schemas["NumKingRoundIn"]
  | Schemas["NumWinRoundIn"];
export type RoundOut = Schemas["RoundOut"];
export type Save = (body: RoundBody) => Promise<Refusal | null>;

/** What the sheet gives a ruleset's round entry. */
export interface EntryProps {
  t: Texts;
  /** the round's number (past the planned rounds: a tie-break round) */
  n: number;
  names: string[];
  dealer: number;
  tiebreak: boolean;
  /** the round before this one, as the sheet stored it (numking's streaks follow it) */
  previous: RoundOut | null;
  /** the sheet's options, as the API answers them */
  options: Record<string, unknown>;
  save: Save;
  /** a correction of a stored round (rounds.tsx): the entry starts from it */
  correction?: Correction;
  /** where the new round's draft is kept while typed (draft.ts); none for a correction */
  keep?: string;
}

/** A round being corrected: the round as stored, and the way back without saving. */
export interface Correction {
  round: RoundOut;
  onCancel: () => void;
}

/** The option values of a new sheet's form, by option name. */
export type OptionValues = Record<string, boolean | number | null>;

/** An option the new sheet offers: a yes/no, or a whole number (blank: the API's default). */
export interface OptionSpec {
  name: OptionName;
  kind: "flag" | "number";
  min?: number;
  max?: number;
}
export type OptionName = keyof Texts["optionNames"];

/** What the new sheet and the sheet screen need of a ruleset. */
export interface SheetRuleset {
  options: readonly OptionSpec[];
  /** the planned rounds the API defaults to for `players` (null: it cannot say) */
  defaultRounds: (players: number, values: OptionValues) => Promise<number | null>;
  /** the options of a new sheet or a new online game, from the form's values (the same
   * options, named alike, in both: one form part, OptionsFieldset, asks them) */
  optionsOf: (values: OptionValues) => NonNullable<Schemas["CreateSheet"]["options"]>;
  Entry: (props: EntryProps) => JSX.Element;
}

export function flag(values: OptionValues, name: string): boolean {
  return values[name] === true;
}

export function count(values: OptionValues, name: string): number | null {
  const value = values[name];
  return typeof value === "number" ? value : null;
}

/** A sheet option as the API answers it (`SheetOut.options`), a yes/no. */
export function sheetFlag(options: Record<string, unknown>, name: string): boolean {
  return options[name] === true;
}

// -- saving and the live score --------------------------------------------------------------------

/** A round's save: busy while under way, and the API's refusal (its fields shown under theirs). */
export function useSave(save: Save, networkError: string) {
  const [problem, setProblem] = useState<Refusal | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(body: RoundBody | null): Promise<void> {
    if (!body) return;
    setBusy(true);
    try {
      const refused = await save(body);
      setProblem(refused);
    } catch {
      setProblem({ detail: networkError, fields: {} });
    } finally {
      setBusy(false);
    }
  }
  return { problem, busy, submit };
}

/** How many times the network came back (the window's `online` event) since the screen
 * opened: a dependency that asks again what failed offline. */
export function useOnline(): number {
  const [back, setBack] = useState(0);
  useEffect(() => {
    const onOnline = () => setBack((n) => n + 1);
    window.addEventListener("online", onOnline);
    return () => window.removeEventListener("online", onOnline);
  }, []);
  return back;
}

/** What openapi-fetch answers a stateless `score-round` call. */
interface Scored {
  data?: RoundScore | undefined;
  error?: unknown;
}

/** The round's score asked of the stateless `score-round` (`ask`) a moment after `body` last
 * changed (null: nothing to ask yet); an answer to an older body is dropped. */
export function useLiveScore<B>(body: B | null, ask: (body: B) => Promise<Scored>, t: Texts) {
  const [score, setScore] = useState<RoundScore | null>(null);
  const [problem, setProblem] = useState<Refusal | null>(null);
  const asked = useRef(0);
  const key = body === null ? "" : JSON.stringify(body);
  // the network back: the score asked while offline is asked again (the banner promised it)
  const back = useOnline();
  useEffect(() => {
    if (body === null) {
      asked.current++;
      setScore(null);
      setProblem(null);
      return;
    }
    const mine = ++asked.current;
    const timer = setTimeout(() => {
      ask(body)
        .then(({ data, error }) => {
          if (mine !== asked.current) return;
          setScore(data ?? null);
          setProblem(data ? null : refusal(error, t.networkError));
        })
        .catch(() => {
          if (mine === asked.current) setProblem({ detail: t.networkError, fields: {} });
        });
    }, 150);
    return () => clearTimeout(timer);
  }, [key, t, back]);
  return { score: body === null ? null : score, problem };
}

/** A field's message: the save's refusal first, else the live score's. */
export function fieldError(field: string, ...refusals: (Refusal | null)[]): string | undefined {
  for (const one of refusals) {
    const message = one?.fields[field];
    if (message) return message;
  }
  return undefined;
}

// -- the round's frame and its live score ------------------------------------------------------------

/** The sheet's last news ("Manche 2 corrigée." …), said right under the round's heading, where
 * the focus lands when the next round opens: not far below, past the whole form. */
export const FrameNotice = createContext<string | null>(null);

export function RoundFrame({
  t,
  n,
  names,
  dealer,
  tiebreak,
  ready,
  busy,
  onSubmit,
  correction,
  children,
}: {
  t: Texts;
  n: number;
  names: string[];
  dealer: number;
  tiebreak: boolean;
  ready: boolean;
  busy: boolean;
  onSubmit: () => void;
  correction?: Correction | undefined;
  children: ComponentChildren;
}) {
  const notice = useContext(FrameNotice);
  return (
    <section>
      <Heading level={2}>{correction ? t.fixCorrecting(n) : t.round(n)}</Heading>
      {notice && !correction ? (
        <p role="status" class="notice">
          {notice}
        </p>
      ) : null}
      <p>{t.dealer(names[dealer] ?? "")}</p>
      {tiebreak ? <p class="notice">{t.tiebreakRound}</p> : null}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
        noValidate
      >
        {children}
        <button type="submit" class="primary" disabled={!ready || busy}>
          {correction ? t.fixSave : t.saveRound}
        </button>
        {correction ? (
          <button type="button" onClick={correction.onCancel} disabled={busy}>
            {t.fixCancel}
          </button>
        ) : null}
      </form>
    </section>
  );
}

type ScoreLine = Schemas["ScoreLine"];

/** A breakdown line as the API words it; a line worth 0 by a rule says which, from its
 * stable `kind` and its `params` (rules/numwars.md "Scoring a round": a value held twice
 * scores 0, the two cards cancel out; numwars-classic: a lone trump and a Joker score 0). */
export function partText(t: Texts, part: ScoreLine): string {
  const text = t.part(part.label, part.points);
  if (part.points !== 0) return text;
  if (part.kind === "value-group" && part.params?.["count"] === 2) return t.partWhy(text, t.pairCancels);
  if (part.kind === "lone-trumps") return t.partWhy(text, t.loneTrumps);
  if (part.kind === "jokers") return t.partWhy(text, t.noValue);
  return text;
}

/** "Score de la manche": each player's score and breakdown as the API words them (and, from
 * `unscored`, a line for each card the player counted that the API's breakdown leaves out
 * because it scores nothing: the player sees it was counted), the teams' scores when the
 * round has teams, or `hint` while the round cannot be scored yet. */
export function LiveScore({
  t,
  names,
  score,
  hint,
  problems,
  shown,
  unscored,
}: {
  t: Texts;
  names: string[];
  score: RoundScore | null;
  hint: string | null;
  problems: (Refusal | null)[];
  shown: readonly string[];
  unscored?: (seat: number) => string[];
}) {
  return (
    <section aria-labelledby="live-title" class="live" aria-live="polite">
      <h2 id="live-title">{t.liveScore}</h2>
      {hint ? <p class="muted">{hint}</p> : null}
      {!hint && score ? (
        <ul class="scores">
          {score.players.map((line) => (
            <li key={line.seat} data-seat={line.seat}>
              <strong class="score">{t.scoreOf(names[line.seat] ?? "", line.score)}</strong>
              <ul class="breakdown">
                {line.breakdown.map((part, i) => (
                  <li key={i}>{partText(t, part)}</li>
                ))}
                {(unscored?.(line.seat) ?? []).map((words, i) => (
                  <li key={`none-${i}`} class="unscored">
                    {words}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      ) : null}
      {!hint && score?.teams && score.teams.length > 0 ? (
        <ul class="scores teams">
          {score.teams.map((team, i) => (
            <li key={i} class="team">
              {t.scoreOf(t.team(team.seats.map((seat) => names[seat] ?? "")), team.score)}
            </li>
          ))}
        </ul>
      ) : null}
      {problems.map((problem, i) => (
        <Problem key={i} refusal={problem} shown={shown} />
      ))}
    </section>
  );
}

// -- picking cards by "TYPE DE CARTE" ------------------------------------------------------------------

/** Cards of one type picked at once: `count` cards of `value` (a value of 0 for a type without). */
export interface Entry<T extends string> {
  type: T;
  value: number;
  count: number;
}

/** A type of card the picker offers: with a value or not, several at once or one. */
export interface PickType<T extends string> {
  type: T;
  valued: boolean;
  counted: boolean;
}

export function CardPicker<T extends string>({
  t,
  types,
  label,
  values,
  left,
  onAdd,
}: {
  t: Texts;
  types: readonly PickType<T>[];
  label: (type: T) => string;
  values: readonly number[];
  /** how many more cards of that type and value the round's deck holds */
  left: (type: T, value: number) => number;
  onAdd: (entry: Entry<T>) => void;
}) {
  const first = types[0];
  const [chosen, setChosen] = useState<T | null>(null);
  const [value, setValue] = useState(values.includes(1) ? 1 : (values[0] ?? 0));
  const [many, setMany] = useState(1);
  const kind = types.find((k) => k.type === chosen) ?? first;
  if (!kind) return null;
  const available = left(kind.type, kind.valued ? value : 0);
  // what the count is of: the type and, for a valued type, its value (« Rainbow 5 »); the
  // type's other values may still have cards when this one has none
  const what = kind.valued ? `${label(kind.type)} ${value}` : label(kind.type);
  const typeLeft = kind.valued ? values.reduce((sum, v) => sum + left(kind.type, v), 0) : available;
  const counts = kind.counted ? Array.from({ length: available }, (_, i) => i + 1) : [];
  const chosenCount = Math.min(many, Math.max(available, 1));
  return (
    <div class="picker">
      <Field label={t.cardType}>
        {(p) => (
          <select
            {...p}
            value={kind.type}
            onChange={(e) => {
              const picked = types.find((k) => k.type === e.currentTarget.value);
              if (picked) setChosen(picked.type);
            }}
          >
            {types.map((k) => (
              <option key={k.type} value={k.type}>
                {label(k.type)}
              </option>
            ))}
          </select>
        )}
      </Field>
      {kind.valued ? (
        <Field label={t.value}>
          {(p) => (
            <select {...p} value={String(value)} onChange={(e) => setValue(Number(e.currentTarget.value))}>
              {values.map((v) => (
                <option key={v} value={String(v)}>
                  {v}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {kind.counted && available > 0 ? (
        <Field label={t.count}>
          {(p) => (
            <select {...p} value={String(chosenCount)} onChange={(e) => setMany(Number(e.currentTarget.value))}>
              {counts.map((c) => (
                <option key={c} value={String(c)}>
                  {c}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      {available > 0 ? (
        <button
          type="button"
          onClick={() =>
            onAdd({ type: kind.type, value: kind.valued ? value : 0, count: kind.counted ? chosenCount : 1 })
          }
        >
          {t.addCards}
        </button>
      ) : null}
      <p class="muted" role="status">
        {available > 0 ? t.leftInDeck(what, available) : typeLeft > 0 ? t.noMoreOf(what) : t.noMore}
      </p>
    </div>
  );
}

/** The cards picked so far, each with its remove button, or `empty`. */
export function PickedList({
  t,
  title,
  items,
  empty,
  onRemove,
}: {
  t: Texts;
  title: string;
  items: readonly string[];
  empty: string;
  onRemove: (index: number) => void;
}) {
  return (
    <>
      <h3 class="small-title">{title}</h3>
      {items.length === 0 ? (
        <p class="muted">{empty}</p>
      ) : (
        <ul class="cards">
          {items.map((what, i) => (
            <li key={i}>
              <span>{what}</span>
              <button type="button" class="small" aria-label={t.removeCards(what)} onClick={() => onRemove(i)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

// -- card codes ---------------------------------------------------------------------------------------

export type Family = "red" | "blue" | "green" | "yellow" | "rainbow" | "shadow";
type Value = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14 | 15 | 16;
const VALUES: readonly Value[] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
/** A numbered card's code, in every deck that has it (104 of Num Wars classic, 111 of Num Win). */
export type Numbered = `${Family}-${Value}`;
export const COLOURS: readonly Family[] = ["red", "blue", "green", "yellow"];
const FAMILIES: readonly Family[] = [...COLOURS, "rainbow", "shadow"];
export const ALL_VALUES: readonly number[] = VALUES;

export function numbered(family: Family, value: number): Numbered {
  const known = VALUES.find((v) => v === value);
  if (known === undefined) throw new Error(`no card of value ${value}`);
  return `${family}-${known}`;
}

/** A numbered card's family and value, or null for a card without a number. */
export function parseNumbered(code: string): { family: Family; value: number } | null {
  const [kind, number] = code.split("-");
  const family = FAMILIES.find((f) => f === kind);
  const value = Number(number);
  return family && number !== undefined && ALL_VALUES.includes(value) ? { family, value } : null;
}

/** Classic cards by value, each given a colour still free in the round (colours change no
 * score): the first of a value is red, the next blue … */
export function colourer(): (value: number) => Numbered {
  const taken = new Map<number, number>();
  return (value) => {
    const next = taken.get(value) ?? 0;
    taken.set(value, next + 1);
    return numbered(COLOURS[next % COLOURS.length] ?? "red", value);
  };
}
