// A Num Win round (rules/numwin.md "Scoring"): each player's final combination by "TYPE DE
// CARTE" (classic cards by value and count, Rainbows, Shadows, the action cards), the pairs
// they locked by snapping (two classic cards, a Rainbow and a classic card, a Rainbow and a
// Shadow of one value), and who called "Num Win". The lowest total wins.

import { useDraft } from "./draft";
import { type Schemas, api } from "./api";
import {
  ALL_VALUES,
  CardPicker,
  type Entry,
  type EntryProps,
  LiveScore,
  type Numbered,
  PickedList,
  type PickType,
  RoundFrame,
  type SheetRuleset,
  colourer,
  fieldError,
  flag,
  numbered,
  parseNumbered,
  sheetFlag,
  useLiveScore,
  useSave,
} from "./entry";
import type { Texts } from "./i18n";
import { numWinInput } from "./rounds";
import { Field } from "./ui";

type NumWinRound = Schemas["NumWinRoundIn"];
type Hand = Schemas["NumWinHandInput"];
type NumWinCard = Hand["combination"][number];
type Action = "swipe" | "flip" | "quantum" | "malus-0" | "malus-1" | "malus-2";
type NumberedKind = "classic" | "rainbow" | "shadow";
type CardKind = NumberedKind | Action;
type PairKind = "classic-pair" | "rainbow-classic" | "rainbow-shadow";

const ACTIONS: readonly Action[] = ["swipe", "flip", "quantum", "malus-0", "malus-1", "malus-2"];
const CARD_TYPES: readonly PickType<CardKind>[] = [
  { type: "classic", valued: true, counted: true },
  { type: "rainbow", valued: true, counted: false },
  { type: "shadow", valued: true, counted: false },
  ...ACTIONS.map((type) => ({ type, valued: false, counted: false })),
];
const PAIR_TYPES: readonly PickType<PairKind>[] = [
  { type: "classic-pair", valued: true, counted: false },
  { type: "rainbow-classic", valued: true, counted: false },
  { type: "rainbow-shadow", valued: true, counted: false },
];
/** The copies of each card in the 111-card deck: 4 classic cards a value, 2 of each action
 * card but the Malus (one each), one Rainbow and one Shadow a value. */
const COPIES: Record<CardKind, number> = {
  classic: 4,
  rainbow: 1,
  shadow: 1,
  swipe: 2,
  flip: 2,
  quantum: 2,
  "malus-0": 1,
  "malus-1": 1,
  "malus-2": 1,
};
/** The cards of a locked pair. */
const PAIR_CARDS: Record<PairKind, readonly [NumberedKind, NumberedKind]> = {
  "classic-pair": ["classic", "classic"],
  "rainbow-classic": ["rainbow", "classic"],
  "rainbow-shadow": ["rainbow", "shadow"],
};

function isNumbered(kind: CardKind): kind is NumberedKind {
  return kind === "classic" || kind === "rainbow" || kind === "shadow";
}

interface HandDraft {
  combination: Entry<CardKind>[];
  locked: Entry<PairKind>[];
}

/** How many cards of `kind` (of `value`, when it has one) the round's hands already hold. */
function used(hands: readonly HandDraft[], kind: CardKind, value: number): number {
  const valued = isNumbered(kind);
  let total = 0;
  for (const hand of hands) {
    for (const entry of hand.combination) {
      if (entry.type === kind && (!valued || entry.value === value)) total += entry.count;
    }
    for (const pair of hand.locked) {
      if (pair.value !== value) continue;
      for (const card of PAIR_CARDS[pair.type]) if (card === kind) total += 1;
    }
  }
  return total;
}

function leftCards(hands: readonly HandDraft[], kind: CardKind, value: number): number {
  return Math.max(0, COPIES[kind] - used(hands, kind, value));
}

/** How many more pairs of `kind` and `value` the deck allows. */
function leftPairs(hands: readonly HandDraft[], kind: PairKind, value: number): number {
  const needs = new Map<CardKind, number>();
  for (const card of PAIR_CARDS[kind]) needs.set(card, (needs.get(card) ?? 0) + 1);
  let most = Infinity;
  for (const [card, need] of needs) most = Math.min(most, Math.floor(leftCards(hands, card, value) / need));
  return most;
}

function size(hand: HandDraft): number {
  return hand.combination.reduce((sum, entry) => sum + entry.count, 0) + 2 * hand.locked.length;
}

/** The hands as the `score-round` body's `players`, or null while one holds fewer than 5 cards. */
function handsBody(hands: readonly HandDraft[]): NumWinRound["players"] | null {
  if (hands.some((hand) => size(hand) < 5)) return null;
  const colour = colourer();
  const numberedCard = (kind: NumberedKind, value: number): Numbered =>
    kind === "classic" ? colour(value) : numbered(kind, value);
  return hands.map((hand) => {
    const combination: NumWinCard[] = [];
    for (const entry of hand.combination) {
      const { type } = entry;
      for (let i = 0; i < entry.count; i++) {
        combination.push(isNumbered(type) ? numberedCard(type, entry.value) : type);
      }
    }
    const locked = hand.locked.map((pair): [Numbered, Numbered] => {
      const [a, b] = PAIR_CARDS[pair.type];
      return [numberedCard(a, pair.value), numberedCard(b, pair.value)];
    });
    return locked.length > 0 ? { combination, locked } : { combination };
  });
}

function describeCard(t: Texts, entry: Entry<CardKind>): string {
  switch (entry.type) {
    case "classic":
      return t.classicCards(entry.count, entry.value);
    case "rainbow":
    case "shadow":
      return `${t.cardTypes[entry.type]} ${entry.value}`;
    default:
      return t.actionCards[entry.type];
  }
}

/** A stored round's hands turned back into the entry's draft: classic cards by value and count
 * (their colours change no score), the Rainbows, Shadows and action cards, the locked pairs. */
function draftOf(players: Schemas["NumWinScoreRequest"]["players"], seats: number): HandDraft[] {
  return Array.from({ length: seats }, (_, seat) => {
    const hand = players[seat];
    const classic = new Map<number, number>();
    const others: Entry<CardKind>[] = [];
    const codes: readonly string[] = hand?.combination ?? [];
    for (const code of codes) {
      const action = ACTIONS.find((a) => a === code);
      const parsed = parseNumbered(code);
      if (action) others.push({ type: action, value: 0, count: 1 });
      else if (parsed?.family === "rainbow" || parsed?.family === "shadow")
        others.push({ type: parsed.family, value: parsed.value, count: 1 });
      else if (parsed) classic.set(parsed.value, (classic.get(parsed.value) ?? 0) + 1);
    }
    const combination: Entry<CardKind>[] = [
      ...[...classic].map(([value, many]): Entry<CardKind> => ({ type: "classic", value, count: many })),
      ...others,
    ];
    const locked: Entry<PairKind>[] = [];
    for (const pair of hand?.locked ?? []) {
      const cards: readonly string[] = pair;
      const families = cards.map((code) => parseNumbered(code));
      const value = families[0]?.value ?? 0;
      const trumps = families.map((f) => f?.family).filter((f) => f === "rainbow" || f === "shadow");
      const type: PairKind =
        trumps.length === 2 ? "rainbow-shadow" : trumps.length === 1 ? "rainbow-classic" : "classic-pair";
      locked.push({ type, value, count: 1 });
    }
    return { combination, locked };
  });
}

function NumWinEntry({ t, n, names, dealer, tiebreak, options, save, correction, keep }: EntryProps) {
  const stored = correction ? numWinInput(correction.round) : null;
  const part = (name: string) => (keep ? `${keep}.${name}` : undefined);
  const [hands, setHands] = useDraft<HandDraft[]>(part("hands"), () =>
    stored ? draftOf(stored.players, names.length) : names.map(() => ({ combination: [], locked: [] })),
  );
  const [caller, setCaller] = useDraft<number | null>(part("caller"), () => stored?.caller ?? null);
  const players = handsBody(hands);
  const teams = sheetFlag(options, "teams");
  const live = useLiveScore(
    players ? { players, caller } : null,
    (body) => api.POST("/v1/rulesets/numwin/score-round", { body: { ...body, options: { teams } } }),
    t,
  );
  const saving = useSave(save, t.networkError);
  const change = (seat: number, next: (hand: HandDraft) => HandDraft) =>
    setHands((old) => old.map((hand, i) => (i === seat ? next(hand) : hand)));
  const shown = names.flatMap((_, seat) => [`players[${seat}].combination`, `players[${seat}].locked`, "caller"]);
  return (
    <RoundFrame
      t={t}
      n={n}
      names={names}
      dealer={dealer}
      tiebreak={tiebreak}
      ready={players !== null && live.score !== null}
      busy={saving.busy}
      onSubmit={() => void (players ? saving.submit({ players, caller }) : undefined)}
      correction={correction}
    >
      {hands.map((hand, seat) => {
        const name = names[seat] ?? "";
        const comboError = fieldError(`players[${seat}].combination`, saving.problem, live.problem);
        const lockedError = fieldError(`players[${seat}].locked`, saving.problem, live.problem);
        return (
          <fieldset key={seat} class="player">
            <legend>{name}</legend>
            <fieldset>
              <legend>{t.combination}</legend>
              <CardPicker
                t={t}
                types={CARD_TYPES}
                label={(type) => (isNumbered(type) ? t.cardTypes[type] : t.actionCards[type])}
                values={ALL_VALUES}
                left={(kind, value) => leftCards(hands, kind, value)}
                onAdd={(entry) => change(seat, (old) => ({ ...old, combination: [...old.combination, entry] }))}
              />
              <PickedList
                t={t}
                title={t.combinationOf(name, size(hand))}
                items={hand.combination.map((entry) => describeCard(t, entry))}
                empty={t.noCards}
                onRemove={(i) => change(seat, (old) => ({ ...old, combination: old.combination.filter((_, j) => j !== i) }))}
              />
              {comboError ? <p class="field-error">{comboError}</p> : null}
            </fieldset>
            <fieldset>
              <legend>{t.lockedPairs}</legend>
              <CardPicker
                t={t}
                types={PAIR_TYPES}
                label={(type) => t.pairKinds[type]}
                values={ALL_VALUES}
                left={(kind, value) => leftPairs(hands, kind, value)}
                onAdd={(entry) => change(seat, (old) => ({ ...old, locked: [...old.locked, entry] }))}
              />
              <PickedList
                t={t}
                title={t.lockedOf(name)}
                items={hand.locked.map((pair) => t.lockedPair(t.pairKinds[pair.type], pair.value))}
                empty={t.noPairs}
                onRemove={(i) => change(seat, (old) => ({ ...old, locked: old.locked.filter((_, j) => j !== i) }))}
              />
              {lockedError ? <p class="field-error">{lockedError}</p> : null}
            </fieldset>
          </fieldset>
        );
      })}
      <Field label={t.caller} error={fieldError("caller", saving.problem, live.problem)}>
        {(p) => (
          <select
            {...p}
            value={caller === null ? "" : String(caller)}
            onChange={(e) => {
              const value = e.currentTarget.value;
              setCaller(value === "" ? null : Number(value));
            }}
          >
            <option value="">{t.nobodyCalled}</option>
            {names.map((name, seat) => (
              <option key={seat} value={String(seat)}>
                {name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <LiveScore
        t={t}
        names={names}
        score={live.score}
        hint={players ? null : t.fiveCards}
        problems={[saving.problem, live.problem]}
        shown={shown}
      />
    </RoundFrame>
  );
}

export const NUMWIN = {
  options: [{ name: "teams", kind: "flag" }],
  defaultRounds: async (players) => players, // one round per player, each dealing once
  optionsOf: (values) => ({ teams: flag(values, "teams") }),
  Entry: NumWinEntry,
} satisfies SheetRuleset;
