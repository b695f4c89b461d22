// Corrections of a sheet's rounds: correct one (`PUT …/rounds/{n}`) or delete it (`DELETE`,
// the later ones renumbered), each sent with `If-Match` = the sheet's version. When another
// phone changed the sheet first, the service answers 412: the sheet is read again, the
// correction being typed stays as it was, and the player is told in the app's language, so a
// save never overwrites a change it did not see and no correction is lost. Beside the totals:
// the list of rounds played (dealer, winners, the two actions) and the score over the rounds.

import { useEffect, useRef, useState } from "preact/hooks";
import { type NumWarsRound, type Refusal, type Schemas, type Sheet, api, bearer, ifMatch, refusal } from "./api";
import { LineChart } from "./charts";
import type { RoundBody } from "./entry";
import type { Texts } from "./i18n";
import { COLOURS, type Entry, KEPT_WAYS, type RoundDraft } from "./numwars";
import { Problem } from "./ui";

type Round = Sheet["rounds"][number];

/** The Num Wars round as entered, or null for another ruleset's input. */
export function numWarsInput(round: Round): NumWarsRound | null {
  const input = round.input;
  return "bomb_outcome" in input ? input : null;
}

/** The Num Wars classic round as entered (captured piles, no roles), or null. */
export function classicInput(round: Round): Schemas["ClassicScoreRequest"] | null {
  const input = round.input;
  return isClassic(input) ? input : null;
}

function isClassic(input: Round["input"]): input is Schemas["ClassicScoreRequest"] {
  const piles: readonly object[] = input.players;
  return !("bomb_outcome" in input) && !("cards" in input) && piles.every((pile) => "captured" in pile);
}

/** The Num King round as entered (bids and tricks), or null. */
export function numKingInput(round: Round): Schemas["NumKingScoreRequest"] | null {
  const input = round.input;
  return "cards" in input ? input : null;
}

/** The Num Win round as entered (combinations, locked pairs, the caller), or null. */
export function numWinInput(round: Round): Schemas["NumWinScoreRequest"] | null {
  const input = round.input;
  return isNumWin(input) ? input : null;
}

function isNumWin(input: Round["input"]): input is Schemas["NumWinScoreRequest"] {
  const hands: readonly object[] = input.players;
  return hands.every((hand) => "combination" in hand);
}

/** A stored Num Wars round turned back into the draft the round entry edits: classic cards by
 * value and count (their colours change no score), lone Rainbows and Shadows, trump pairs, the
 * role cards, and who had the Bomb. */
export function draftOf(input: NumWarsRound): RoundDraft {
  let bombHolder: number | null = null;
  const players = input.players.map((player, seat) => {
    const entries: Entry[] = [];
    const classic = new Map<number, number>();
    for (const card of player.captured) {
      const [kind, number] = card.split("-");
      const value = Number(number);
      if (card === "bomb") bombHolder = seat;
      else if (card === "joker" || card === "numx" || card === "quantum") entries.push({ type: card, value: 0, count: 1 });
      else if (kind === "rainbow" || kind === "shadow") entries.push({ type: kind, value, count: 1 });
      else if (kind !== undefined && COLOURS.includes(kind)) classic.set(value, (classic.get(value) ?? 0) + 1);
    }
    const grouped: Entry[] = [...classic].map(([value, count]) => ({ type: "classic", value, count }));
    for (const pair of player.pairs ?? []) {
      entries.push({ type: "pair", value: Number(pair[0]?.split("-")[1]), count: 1 });
    }
    return { role: player.role, entries: [...grouped, ...entries] };
  });
  const keptWay = KEPT_WAYS.find((way) => way === input.bomb_outcome) ?? "kept";
  return { players, bombHolder, keptWay };
}

/** The round being corrected, as the sheet stored it. */
export interface Editing {
  round: Round;
}

/** The corrections of one sheet: which round is being corrected, and the two writes. `reload`
 * reads the sheet again and gives it (null when it could not). */
export function useCorrections(t: Texts, id: string, token: string | undefined, sheet: Sheet | null, reload: () => Promise<Sheet | null>) {
  const [editing, setEditing] = useState<Editing | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  function start(round: Round) {
    setNotice(null);
    setEditing({ round });
  }

  /** After a 412: the fresh sheet, and the round being corrected dropped if it is gone. */
  async function moved(n: number, message: string): Promise<Refusal> {
    const fresh = await reload();
    if (fresh && n > fresh.rounds.length) {
      setEditing(null);
      setNotice(t.fixGone(n));
    }
    return { detail: message, fields: {} };
  }

  async function save(body: RoundBody): Promise<Refusal | null> {
    if (!editing || !sheet || !token) return null;
    const n = editing.round.n;
    const { data, error, response } = await api.PUT("/v1/scoresheets/{sheet_id}/rounds/{n}", {
      params: { path: { sheet_id: id, n }, header: { "If-Match": ifMatch(sheet.version) } },
      headers: bearer(token),
      body: { ...body, dealer: editing.round.dealer },
    });
    if (response.status === 412) return moved(n, t.fixMoved);
    if (!data) return refusal(error, t.networkError);
    setEditing(null);
    setNotice(t.fixCorrected(n));
    await reload();
    return null;
  }

  async function remove(n: number): Promise<Refusal | null> {
    if (!sheet || !token) return null;
    const { error, response } = await api.DELETE("/v1/scoresheets/{sheet_id}/rounds/{n}", {
      params: { path: { sheet_id: id, n }, header: { "If-Match": ifMatch(sheet.version) } },
      headers: bearer(token),
    });
    if (response.status === 412) return moved(n, t.fixMovedRemove);
    if (!response.ok) return refusal(error, t.networkError);
    if (editing) setEditing(null);
    setNotice(t.fixRemoved(n));
    await reload();
    return null;
  }

  return { editing, notice, start, save, remove, cancel: () => setEditing(null), clearNotice: () => setNotice(null) };
}

export type Corrections = ReturnType<typeof useCorrections>;

/** Each player's running total after each round (0 before the first), from the rounds' scores. */
export function runningTotals(sheet: Sheet): number[][] {
  return sheet.players.map((_, seat) => {
    const totals = [0];
    for (const round of sheet.rounds) {
      const score = round.scores.players.find((p) => p.seat === seat)?.score ?? 0;
      totals.push((totals[totals.length - 1] ?? 0) + score);
    }
    return totals;
  });
}

export function ScoreChart({ t, sheet }: { t: Texts; sheet: Sheet }) {
  if (sheet.rounds.length === 0) return null;
  const names = sheet.players.map((player) => player.name);
  const running = runningTotals(sheet);
  const series = names.map((name, seat) => ({ name, values: running[seat] ?? [] }));
  const desc = t.chartScoreDesc(series.map((s) => t.chartScoreLine(s.name, s.values.slice(1).map(String))));
  return (
    <section aria-labelledby="score-chart-title">
      <h3 id="score-chart-title" class="small-title">
        {t.chartScoreTitle}
      </h3>
      <LineChart title={t.chartScoreTitle} desc={desc} series={series} />
    </section>
  );
}

/** The rounds played, newest last: each one's dealer and winners, and (for whoever may change
 * the sheet) "correct" and "delete", the delete asked again before it is sent. */
export function RoundList({ t, sheet, fix, canChange }: { t: Texts; sheet: Sheet; fix: Corrections; canChange: boolean }) {
  const [asking, setAsking] = useState<number | null>(null);
  const [problem, setProblem] = useState<Refusal | null>(null);
  const [busy, setBusy] = useState(false);
  const confirmRef = useRef<HTMLParagraphElement>(null);
  const names = sheet.players.map((player) => player.name);

  useEffect(() => {
    if (asking !== null) confirmRef.current?.focus();
  }, [asking]);

  if (sheet.rounds.length === 0) return null;

  async function remove(n: number) {
    setBusy(true);
    setProblem(null);
    try {
      setProblem(await fix.remove(n));
    } catch {
      setProblem({ detail: t.networkError, fields: {} });
    } finally {
      setBusy(false);
      setAsking(null);
    }
  }

  return (
    <section aria-labelledby="rounds-title" class="rounds">
      <h3 id="rounds-title" class="small-title">
        {t.fixRoundsTitle}
      </h3>
      <Problem refusal={problem} shown={[]} />
      <ol class="round-list">
        {sheet.rounds.map((round) => (
          <li key={round.n}>
            <p>
              <strong>{round.n > sheet.planned_rounds ? t.fixTiebreakRound(round.n) : t.round(round.n)}</strong>
              {" · "}
              {t.dealer(names[round.dealer] ?? "")}
              {round.scores.winners.length > 0 ? (
                <>
                  {" · "}
                  {t.fixRoundWinner(round.scores.winners.map((seat) => names[seat] ?? ""))}
                </>
              ) : null}
            </p>
            {canChange && asking !== round.n ? (
              <div class="round-actions">
                <button type="button" onClick={() => fix.start(round)} disabled={busy}>
                  {t.fixCorrect(round.n)}
                </button>
                <button
                  type="button"
                  onClick={() => {
                    setProblem(null);
                    setAsking(round.n);
                  }}
                  disabled={busy}
                >
                  {t.fixRemove(round.n)}
                </button>
              </div>
            ) : null}
            {asking === round.n ? (
              <div class="confirm">
                <p ref={confirmRef} tabIndex={-1}>
                  {t.fixRemoveAsk(round.n)}
                </p>
                <div class="round-actions">
                  <button type="button" class="danger" onClick={() => void remove(round.n)} disabled={busy}>
                    {t.fixRemoveYes(round.n)}
                  </button>
                  <button type="button" onClick={() => setAsking(null)} disabled={busy}>
                    {t.fixCancel}
                  </button>
                </div>
              </div>
            ) : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
