// A Num Wars round as players count it at the table (rules/numwars.md, "Score de base" and
// "La Bombe & les rôles secrets"), turned into the `score-round` body. Cards are entered by
// type: classic cards by value and count (their colours do not change the score: the app
// gives each one a colour still free in the round), a lone Rainbow or Shadow, a trump pair,
// the role cards. The Bomb goes to the pile of whoever had it; the outcome follows from that
// player's role (and, for the poseur, from how the Bomb was kept).

import type { BombOutcome, NumWarsRound, Role } from "./api";
import { type Card, isCard } from "./deck";

export const COLOURS: readonly string[] = ["red", "blue", "green", "yellow"];
export type CardType = "classic" | "rainbow" | "shadow" | "pair" | "joker" | "numx" | "quantum";
export const CARD_TYPES: readonly CardType[] = ["classic", "rainbow", "shadow", "pair", "joker", "numx", "quantum"];
export const VALUED: ReadonlySet<CardType> = new Set(["classic", "rainbow", "shadow", "pair"]);
export type KeptWay = "kept" | "protected" | "protected-quantum";
export const KEPT_WAYS: readonly KeptWay[] = ["kept", "protected", "protected-quantum"];

export interface Entry {
  type: CardType;
  value: number;
  count: number;
}

export interface PlayerRound {
  role: Role;
  entries: Entry[];
}

export interface RoundDraft {
  players: PlayerRound[];
  bombHolder: number | null;
  keptWay: KeptWay;
}

/** The highest card value for a table size (82 cards 0–12 for 3–5 players, 106 cards 0–16). */
export function maxValue(players: number): number {
  return players <= 5 ? 12 : 16;
}

/** The roles of a table (one each): poseur, demineur, agent; the complice from 4; civils. */
export function tableRoles(players: number): Role[] {
  const roles: Role[] = ["poseur", "demineur", "agent"];
  if (players >= 4) roles.push("complice");
  while (roles.length < players) roles.push("civil");
  return roles;
}

export function emptyDraft(players: number): RoundDraft {
  return {
    players: tableRoles(players).map((role) => ({ role, entries: [] })),
    bombHolder: null,
    keptWay: "kept",
  };
}

/** How many cards of `type` and `value` are already in the round, every player's. */
export function used(draft: RoundDraft, type: CardType, value: number): number {
  let count = 0;
  for (const player of draft.players) {
    for (const entry of player.entries) {
      const sameValue = !VALUED.has(type) || entry.value === value;
      if (!sameValue) continue;
      if (entry.type === type) count += entry.count;
      else if (entry.type === "pair" && (type === "rainbow" || type === "shadow")) count += 1;
      else if (type === "pair" && (entry.type === "rainbow" || entry.type === "shadow")) count += 1;
    }
  }
  return count;
}

/** How many cards of `type` and `value` the deck holds at this table, leaving out the cards
 * that never take part in its rounds (`out`: the deck answer's `out_of_play`, the Joker of a
 * 3-player table, which is its set-aside card). */
export function inDeck(type: CardType, value: number, out: ReadonlySet<string>): number {
  switch (type) {
    case "classic":
      return COLOURS.filter((colour) => !out.has(`${colour}-${value}`)).length;
    case "rainbow":
    case "shadow":
      return out.has(`${type}-${value}`) ? 0 : 1;
    case "pair":
      return out.has(`rainbow-${value}`) || out.has(`shadow-${value}`) ? 0 : 1;
    default:
      return out.has(type) ? 0 : 1;
  }
}

/** How many more cards of `type` and `value` the deck holds for this round. */
export function left(draft: RoundDraft, type: CardType, value: number, out: ReadonlySet<string> = NONE): number {
  return Math.max(0, inDeck(type, value, out) - used(draft, type, value));
}

const NONE: ReadonlySet<string> = new Set();

export function outcomeFor(role: Role, keptWay: KeptWay): BombOutcome {
  switch (role) {
    case "agent":
      return "numx-capture";
    case "demineur":
      return "stolen";
    case "civil":
      return "civil-capture";
    case "complice":
      return "complice-capture";
    case "poseur":
      return keptWay;
  }
}

/** The `score-round` body of the draft, or null while no one had the Bomb. */
export function roundBody(draft: RoundDraft): NumWarsRound | null {
  if (draft.bombHolder === null) return null;
  const holder = draft.players[draft.bombHolder];
  if (!holder) return null;
  const taken = new Map<number, number>();
  const players = draft.players.map((player, seat) => {
    const captured: NumWarsRound["players"][number]["captured"] = [];
    const pairs: NonNullable<NumWarsRound["players"][number]["pairs"]> = [];
    for (const entry of player.entries) {
      switch (entry.type) {
        case "classic":
          for (let i = 0; i < entry.count; i++) {
            const next = taken.get(entry.value) ?? 0;
            taken.set(entry.value, next + 1);
            const colour = COLOURS[next % COLOURS.length] ?? "red";
            captured.push(cardCode(colour, entry.value));
          }
          break;
        case "rainbow":
        case "shadow":
          captured.push(cardCode(entry.type, entry.value));
          break;
        case "pair":
          pairs.push([cardCode("rainbow", entry.value), cardCode("shadow", entry.value)]);
          break;
        case "joker":
        case "numx":
        case "quantum":
          captured.push(entry.type);
          break;
      }
    }
    if (seat === draft.bombHolder) captured.push("bomb");
    return pairs.length > 0 ? { captured, pairs, role: player.role } : { captured, role: player.role };
  });
  return { players, bomb_outcome: outcomeFor(holder.role, draft.keptWay) };
}

/** The deck's code for a colour and value, typed as the spec's card enum. */
function cardCode(colour: string, value: number): Card {
  const code = `${colour}-${value}`;
  if (!isCard(code)) throw new Error(`no card ${code} in the deck`);
  return code;
}
