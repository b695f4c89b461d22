// A Num Wars round ("Manche N"): each player's captured cards by "TYPE DE CARTE", trump pairs,
// role, who had the Bomb (numwars.ts turns it into the `score-round` body); the breakdown and
// score shown live from `score-round` before the round is saved.

import { useEffect, useId, useState } from "preact/hooks";
import { type Role, api } from "./api";
import {
  CardPicker,
  type EntryProps,
  LiveScore,
  PickedList,
  type PickType,
  RoundFrame,
  type SheetRuleset,
  useLiveScore,
  useSave,
} from "./entry";
import type { Texts } from "./i18n";
import {
  CARD_TYPES,
  type CardType,
  type Entry,
  KEPT_WAYS,
  type RoundDraft,
  VALUED,
  emptyDraft,
  inDeck,
  left,
  maxValue,
  roundBody,
  tableRoles,
} from "./numwars";
import { draftOf, numWarsInput } from "./rounds";
import { useDraft } from "./draft";
import { Field } from "./ui";

const PICK_TYPES: readonly PickType<CardType>[] = CARD_TYPES.map((type) => ({
  type,
  valued: VALUED.has(type),
  counted: type === "classic",
}));

/** The cards of the table's deck that never take part in a round (`GET …/deck`'s
 * `out_of_play`: with 3 players the Joker, the set-aside card), once the API has said; none
 * before, or without the network. */
function useOutOfPlay(players: number): ReadonlySet<string> {
  const [out, setOut] = useState<ReadonlySet<string>>(() => new Set());
  useEffect(() => {
    let current = true;
    api
      .GET("/v1/rulesets/numwars/deck", { params: { query: { players } } })
      .then(({ data }) => {
        if (current && data) setOut(new Set(data.out_of_play));
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [players]);
  return out;
}

function NumWarsEntry({ t, n, names, dealer, tiebreak, save, correction, keep }: EntryProps) {
  const [draft, setDraft] = useDraft<RoundDraft>(keep, () => {
    const stored = correction ? numWarsInput(correction.round) : null;
    return stored ? draftOf(stored) : emptyDraft(names.length);
  });
  const body = roundBody(draft);
  const live = useLiveScore(body, (ask) => api.POST("/v1/rulesets/numwars/score-round", { body: ask }), t);
  const saving = useSave(save, t.networkError);
  // the player whose cards are being entered; the others are collapsed to one line each
  const [open, setOpen] = useState<number | null>(0);
  const ids = useId();

  const update = (change: (draft: RoundDraft) => RoundDraft) => setDraft((old) => change(old));
  const setPlayer = (seat: number, change: (entries: Entry[], role: Role) => { entries: Entry[]; role: Role }) =>
    update((old) => ({
      ...old,
      players: old.players.map((player, i) => (i === seat ? change(player.entries, player.role) : player)),
    }));
  // a role another player holds is swapped with them: the table's roles stay a valid set
  // (one each, civils aside), as the API requires, instead of a refusal after the fact
  const chooseRole = (seat: number, chosen: Role) =>
    update((old) => {
      const before = old.players[seat];
      if (!before || before.role === chosen) return old;
      const other = old.players.findIndex((player, i) => i !== seat && player.role === chosen);
      return {
        ...old,
        players: old.players.map((player, i) =>
          i === seat ? { ...player, role: chosen } : i === other ? { ...player, role: before.role } : player,
        ),
      };
    });
  const holder = draft.bombHolder === null ? undefined : draft.players[draft.bombHolder];
  const roles = [...new Set(tableRoles(names.length))];
  const values = Array.from({ length: maxValue(names.length) + 1 }, (_, v) => v);
  // a type none of whose cards is in play at this table is never offered
  const out = useOutOfPlay(names.length);
  const types = PICK_TYPES.filter((kind) => (kind.valued ? values : [0]).some((v) => inDeck(kind.type, v, out) > 0));

  return (
    <RoundFrame
      t={t}
      n={n}
      names={names}
      dealer={dealer}
      tiebreak={tiebreak}
      ready={body !== null && live.score !== null}
      busy={saving.busy}
      onSubmit={() => void saving.submit(body)}
      correction={correction}
    >
      {draft.players.map((player, seat) => (
        <fieldset key={seat} class="player">
          <legend>{names[seat]}</legend>
          <Field label={t.role}>
            {(p) => (
              <select
                {...p}
                value={player.role}
                onChange={(e) => {
                  const chosen = roles.find((role) => role === e.currentTarget.value);
                  if (chosen) chooseRole(seat, chosen);
                }}
              >
                {roles.map((role) => (
                  <option key={role} value={role}>
                    {t.roles[role]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <h3 class="small-title">
            <button
              type="button"
              class="disclosure"
              aria-expanded={open === seat}
              aria-controls={`${ids}-cards-${seat}`}
              onClick={() => setOpen(open === seat ? null : seat)}
            >
              {/* the arrow is for the eyes: the button's state is its aria-expanded */}
              <span aria-hidden="true" class="disclosure-mark">
                {open === seat ? "▾ " : "▸ "}
              </span>
              {t.capturedToggle(names[seat] ?? "", cardsIn(player.entries))}
            </button>
          </h3>
          {open !== seat ? (
            <p class="muted" id={`${ids}-cards-${seat}`}>
              {player.entries.length === 0 ? t.noCards : player.entries.map((entry) => describe(t, entry)).join(", ")}
            </p>
          ) : (
            <div id={`${ids}-cards-${seat}`}>
              <CardPicker
                t={t}
                types={types}
                label={(type) => t.cardTypes[type]}
                values={values}
                left={(type, value) => left(draft, type, value, out)}
                onAdd={(entry) => setPlayer(seat, (entries, role) => ({ entries: [...entries, entry], role }))}
              />
              <PickedList
                t={t}
                title={t.capturedOf(names[seat] ?? "")}
                items={player.entries.map((entry) => describe(t, entry))}
                empty={t.noCards}
                onRemove={(i) => setPlayer(seat, (entries, role) => ({ entries: entries.filter((_, j) => j !== i), role }))}
              />
            </div>
          )}
        </fieldset>
      ))}
      <Field label={t.bombHolder}>
        {(p) => (
          <select
            {...p}
            value={draft.bombHolder === null ? "" : String(draft.bombHolder)}
            onChange={(e) => {
              const value = e.currentTarget.value;
              update((old) => ({ ...old, bombHolder: value === "" ? null : Number(value) }));
            }}
          >
            <option value="">{t.bombChoose}</option>
            {names.map((name, seat) => (
              <option key={seat} value={String(seat)}>
                {name}
              </option>
            ))}
          </select>
        )}
      </Field>
      {holder?.role === "poseur" ? (
        <Field label={t.bombHow}>
          {(p) => (
            <select
              {...p}
              value={draft.keptWay}
              onChange={(e) => {
                const way = KEPT_WAYS.find((w) => w === e.currentTarget.value);
                if (way) update((old) => ({ ...old, keptWay: way }));
              }}
            >
              {KEPT_WAYS.map((way) => (
                <option key={way} value={way}>
                  {t.bombWays[way]}
                </option>
              ))}
            </select>
          )}
        </Field>
      ) : null}
      <LiveScore
        t={t}
        names={names}
        score={live.score}
        hint={body ? null : t.chooseBomb}
        problems={[saving.problem, live.problem]}
        shown={[]}
        unscored={(seat) => unscored(t, draft.players[seat]?.entries ?? [])}
      />
    </RoundFrame>
  );
}

/** The cards the API's breakdown has no line for, since they score nothing (rules/numwars.md
 * "Scoring a round": only value groups of classic cards, trump pairs and the role bonus
 * score): a lone Rainbow or Shadow, the Num-X, the Joker, the Quantum. Said anyway, so
 * that the player sees them counted. */
function unscored(t: Texts, entries: readonly Entry[]): string[] {
  return entries.flatMap((entry) => {
    switch (entry.type) {
      case "rainbow":
      case "shadow":
        return [t.unscoredTrump(describe(t, entry))];
      case "numx":
      case "joker":
      case "quantum":
        return [t.unscoredSpecial(describe(t, entry))];
      default:
        return [];
    }
  });
}

/** How many cards the entries hold (a trump pair is two). */
function cardsIn(entries: readonly Entry[]): number {
  return entries.reduce((sum, entry) => sum + (entry.type === "pair" ? 2 : entry.count), 0);
}

function describe(t: Texts, entry: Entry): string {
  switch (entry.type) {
    case "classic":
      return t.classicCards(entry.count, entry.value);
    case "pair":
      return t.pairOf(entry.value);
    case "rainbow":
    case "shadow":
      return `${t.cardTypes[entry.type]} ${entry.value}`;
    default:
      return t.cardTypes[entry.type];
  }
}

export const NUMWARS = {
  options: [],
  defaultRounds: async (players) => players, // one round per player, each dealing once
  optionsOf: () => ({}),
  Entry: NumWarsEntry,
} satisfies SheetRuleset;
