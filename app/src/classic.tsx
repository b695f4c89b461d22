// A Num Wars classic round (rules/numwars-classic.md "Scoring a round"): each player's captured
// cards by "TYPE DE CARTE" — classic cards by value and count, a lone Rainbow or Shadow, a
// trump pair (both scored together however they were won), the Jokers. Under `alliance` the
// partners' scores add up (the live score shows the teams). No roles, no Bomb.

import { useDraft } from "./draft";
import { type Schemas, api } from "./api";
import {
  ALL_VALUES,
  CardPicker,
  type EntryProps,
  type Entry,
  LiveScore,
  type OptionValues,
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
import { classicInput } from "./rounds";

type ClassicType = "classic" | "rainbow" | "shadow" | "pair" | "joker";
type ClassicEntry = Entry<ClassicType>;
type ClassicRound = Schemas["ClassicRoundIn"];
type ClassicCard = ClassicRound["players"][number]["captured"][number];

const TYPES: readonly PickType<ClassicType>[] = [
  { type: "classic", valued: true, counted: true },
  { type: "rainbow", valued: true, counted: false },
  { type: "shadow", valued: true, counted: false },
  { type: "pair", valued: true, counted: false },
  { type: "joker", valued: false, counted: false },
];

/** How many cards of `type` and `value` the 104-card deck holds, less those already entered. */
function left(piles: readonly ClassicEntry[][], type: ClassicType, value: number): number {
  const all = piles.flat();
  const same = (entry: ClassicEntry, ...types: ClassicType[]) =>
    types.includes(entry.type) && (type === "joker" || entry.value === value) ? entry.count : 0;
  const used = (...types: ClassicType[]) => all.reduce((sum, entry) => sum + same(entry, ...types), 0);
  switch (type) {
    case "classic":
      return Math.max(0, 4 - used("classic"));
    case "rainbow":
      return Math.max(0, 1 - used("rainbow", "pair"));
    case "shadow":
      return Math.max(0, 1 - used("shadow", "pair"));
    case "pair":
      return Math.max(0, 1 - Math.max(used("rainbow", "pair"), used("shadow", "pair")));
    case "joker":
      return Math.max(0, 2 - used("joker"));
  }
}

/** The round's piles as the `score-round` body's `players`. */
function piles(draft: readonly ClassicEntry[][]): ClassicRound["players"] {
  const colour = colourer();
  return draft.map((entries) => {
    const captured: ClassicCard[] = [];
    for (const entry of entries) {
      switch (entry.type) {
        case "classic":
          for (let i = 0; i < entry.count; i++) captured.push(colour(entry.value));
          break;
        case "rainbow":
        case "shadow":
          captured.push(numbered(entry.type, entry.value));
          break;
        case "pair":
          captured.push(numbered("rainbow", entry.value), numbered("shadow", entry.value));
          break;
        case "joker":
          captured.push("joker");
          break;
      }
    }
    return { captured };
  });
}

function describe(t: Texts, entry: ClassicEntry): string {
  switch (entry.type) {
    case "classic":
      return t.classicCards(entry.count, entry.value);
    case "pair":
      return t.pairOf(entry.value);
    case "rainbow":
    case "shadow":
      return `${t.cardTypes[entry.type]} ${entry.value}`;
    case "joker":
      return t.cardTypes.joker;
  }
}

/** A stored round's piles turned back into the entry's draft: classic cards by value and count
 * (their colours change no score), a Rainbow and a Shadow of one value as their pair. */
function draftOf(players: ClassicRound["players"], seats: number): ClassicEntry[][] {
  return Array.from({ length: seats }, (_, seat) => {
    const classic = new Map<number, number>();
    const trumps: ClassicEntry[] = [];
    let jokers = 0;
    const captured: readonly string[] = players[seat]?.captured ?? [];
    for (const card of captured) {
      const parsed = parseNumbered(card);
      if (card === "joker") jokers++;
      else if (parsed?.family === "rainbow" || parsed?.family === "shadow") {
        const twin = trumps.findIndex((e) => e.value === parsed.value && e.type !== parsed.family && e.type !== "pair");
        const kept = trumps[twin];
        if (kept) trumps[twin] = { ...kept, type: "pair" };
        else trumps.push({ type: parsed.family, value: parsed.value, count: 1 });
      } else if (parsed) classic.set(parsed.value, (classic.get(parsed.value) ?? 0) + 1);
    }
    const grouped: ClassicEntry[] = [...classic].map(([value, many]) => ({ type: "classic", value, count: many }));
    const jokerEntries: ClassicEntry[] = Array.from({ length: jokers }, () => ({ type: "joker", value: 0, count: 1 }));
    return [...grouped, ...trumps, ...jokerEntries];
  });
}

function ClassicEntryScreen({ t, n, names, dealer, tiebreak, options, save, correction, keep }: EntryProps) {
  const [draft, setDraft] = useDraft<ClassicEntry[][]>(keep, () => {
    const stored = correction ? classicInput(correction.round) : null;
    return stored ? draftOf(stored.players, names.length) : names.map(() => []);
  });
  const players = piles(draft);
  const alliance = sheetFlag(options, "alliance");
  const live = useLiveScore(
    players,
    (body) =>
      api.POST("/v1/rulesets/numwars-classic/score-round", { body: { players: body, options: { alliance } } }),
    t,
  );
  const saving = useSave(save, t.networkError);
  const change = (seat: number, next: (entries: ClassicEntry[]) => ClassicEntry[]) =>
    setDraft((old) => old.map((entries, i) => (i === seat ? next(entries) : entries)));
  const shown = names.map((_, seat) => `players[${seat}].captured`);
  return (
    <RoundFrame
      t={t}
      n={n}
      names={names}
      dealer={dealer}
      tiebreak={tiebreak}
      ready={live.score !== null}
      busy={saving.busy}
      onSubmit={() => void saving.submit({ players })}
      correction={correction}
    >
      {draft.map((entries, seat) => {
        const error = fieldError(`players[${seat}].captured`, saving.problem, live.problem);
        return (
          <fieldset key={seat} class="player">
            <legend>{names[seat]}</legend>
            <CardPicker
              t={t}
              types={TYPES}
              label={(type) => t.cardTypes[type]}
              values={ALL_VALUES}
              left={(type, value) => left(draft, type, value)}
              onAdd={(entry) => change(seat, (old) => [...old, entry])}
            />
            <PickedList
              t={t}
              title={t.capturedOf(names[seat] ?? "")}
              items={entries.map((entry) => describe(t, entry))}
              empty={t.noCards}
              onRemove={(i) => change(seat, (old) => old.filter((_, j) => j !== i))}
            />
            {error ? <p class="field-error">{error}</p> : null}
          </fieldset>
        );
      })}
      <LiveScore t={t} names={names} score={live.score} hint={null} problems={[saving.problem, live.problem]} shown={shown} />
    </RoundFrame>
  );
}

export const CLASSIC = {
  options: [
    { name: "alliance", kind: "flag" },
    { name: "tiebreak", kind: "flag" },
  ],
  defaultRounds: async (players) => players, // one round per player, each dealing once
  optionsOf: (values: OptionValues) => ({ alliance: flag(values, "alliance"), tiebreak: flag(values, "tiebreak") }),
  Entry: ClassicEntryScreen,
} satisfies SheetRuleset;
