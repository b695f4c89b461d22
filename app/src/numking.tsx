// A Num King round (rules/numking.md "Rounds", "Scoring a round"): round n deals n cards to
// each player; every player's bid first (0 … n), then, once the round is played, the tricks
// each took. The sheet derives `cards` and each streak itself; the live score asks the
// stateless `score-round` with this round's cards and the streaks after the previous round.

import { useDraft } from "./draft";
import { type Schemas, api } from "./api";
import {
  type EntryProps,
  LiveScore,
  RoundFrame,
  type SheetRuleset,
  count,
  fieldError,
  flag,
  sheetFlag,
  useLiveScore,
  useSave,
} from "./entry";
import { numKingInput } from "./rounds";
import { Field } from "./ui";

type NumKingRound = Schemas["NumKingRoundIn"];

function NumberSelect({
  label,
  value,
  most,
  error,
  onChange,
}: {
  label: string;
  value: number;
  most: number;
  error: string | undefined;
  onChange: (value: number) => void;
}) {
  return (
    <Field label={label} error={error}>
      {(p) => (
        <select {...p} value={String(value)} onChange={(e) => onChange(Number(e.currentTarget.value))}>
          {Array.from({ length: most + 1 }, (_, v) => (
            <option key={v} value={String(v)}>
              {v}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function NumKingEntry({ t, n, names, dealer, tiebreak, previous, options, save, correction, keep }: EntryProps) {
  // a correction starts from the round as stored: its bids and tricks, the bids done
  const stored = correction ? numKingInput(correction.round) : null;
  const part = (name: string) => (keep ? `${keep}.${name}` : undefined);
  const [bids, setBids] = useDraft<number[]>(part("bids"), () => names.map((_, seat) => stored?.players[seat]?.bid ?? 0));
  const [tricks, setTricks] = useDraft<number[]>(part("tricks"), () => names.map((_, seat) => stored?.players[seat]?.tricks ?? 0));
  const [bidding, setBidding] = useDraft(part("bidding"), () => stored === null);
  const streaks = names.map((_, seat) => previous?.scores.players.find((p) => p.seat === seat)?.streak ?? 0);
  const players: NumKingRound["players"] = names.map((_, seat) => ({
    bid: bids[seat] ?? 0,
    tricks: tricks[seat] ?? 0,
  }));
  const zeros = sheetFlag(options, "zeros");
  const live = useLiveScore(
    bidding ? null : players,
    (body) =>
      api.POST("/v1/rulesets/numking/score-round", {
        body: {
          cards: n,
          players: body.map((line, seat) => ({ ...line, streak: streaks[seat] ?? 0 })),
          options: { zeros },
        },
      }),
    t,
  );
  const saving = useSave(save, t.networkError);
  const taken = tricks.reduce((sum, v) => sum + v, 0);
  const set = (list: number[], seat: number, value: number) => list.map((old, i) => (i === seat ? value : old));
  const shown = names.flatMap((_, seat) => [`players[${seat}].bid`, `players[${seat}].tricks`]);
  return (
    <RoundFrame
      t={t}
      n={n}
      names={names}
      dealer={dealer}
      tiebreak={tiebreak}
      ready={!bidding && live.score !== null}
      busy={saving.busy}
      onSubmit={() => void saving.submit({ players })}
      correction={correction}
    >
      <p>{t.cardsEach(n)}</p>
      <fieldset>
        <legend>{t.bids}</legend>
        {bidding ? (
          names.map((name, seat) => (
            <NumberSelect
              key={seat}
              label={t.bidOf(name)}
              value={bids[seat] ?? 0}
              most={n}
              error={fieldError(`players[${seat}].bid`, saving.problem, live.problem)}
              onChange={(value) => setBids((old) => set(old, seat, value))}
            />
          ))
        ) : (
          <ul class="bids">
            {names.map((name, seat) => (
              <li key={seat}>{t.bidSaid(name, bids[seat] ?? 0)}</li>
            ))}
          </ul>
        )}
        <button type="button" onClick={() => setBidding(!bidding)}>
          {bidding ? t.bidsDone : t.bidsChange}
        </button>
      </fieldset>
      {bidding ? null : (
        <fieldset>
          <legend>{t.tricks}</legend>
          {names.map((name, seat) => (
            <NumberSelect
              key={seat}
              label={t.tricksOf(name)}
              value={tricks[seat] ?? 0}
              most={n}
              error={fieldError(`players[${seat}].tricks`, saving.problem, live.problem)}
              onChange={(value) => setTricks((old) => set(old, seat, value))}
            />
          ))}
          <p class={taken > n ? "field-error" : "muted"}>{t.tricksTaken(taken, n)}</p>
        </fieldset>
      )}
      <LiveScore
        t={t}
        names={names}
        score={live.score}
        hint={bidding ? t.bidsFirst : null}
        problems={[saving.problem, live.problem]}
        shown={shown}
      />
    </RoundFrame>
  );
}

export const NUMKING = {
  options: [
    { name: "zeros", kind: "flag" },
    { name: "max_cards", kind: "number", min: 1, max: 19 },
  ],
  // the match length is the last round's hand: `max_cards`, else the most the deck gives
  defaultRounds: async (players, values) => {
    const max = count(values, "max_cards");
    const { data } = await api.GET("/v1/rulesets/numking/deck", {
      params: { query: max === null ? { players, zeros: flag(values, "zeros") } : { players, zeros: flag(values, "zeros"), max_cards: max } },
    });
    return data?.hand_size ?? null;
  },
  optionsOf: (values) => ({ zeros: flag(values, "zeros"), max_cards: count(values, "max_cards") }),
  Entry: NumKingEntry,
} satisfies SheetRuleset;
