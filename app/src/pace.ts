// The pace of a game the bots play fast: what just happened stays in sight long enough to be
// read. The trick just finished stays shown (« Dernier pli ») at least HOLD_MS, or until the
// player acts, even when a bot leads the next trick at once; a round that ends leaves its
// summary (each player's round score: the change of their total) until dismissed or until the
// player acts. Both are worked out from the views the screen receives, nothing more asked.

import { useEffect, useRef, useState } from "preact/hooks";
import type { Game } from "./online";

/** How long a finished trick stays in sight at least (ms). */
export const HOLD_MS = 2500;

type View = Game["view"];
type Trick = NonNullable<Extract<View, { tricks: unknown }>["tricks"]>[number];

/** The round that just ended: its number and each seat's round score. */
export interface RoundSummary {
  round: number;
  scores: number[];
}

/** The finished trick held in sight (null: none) and the summary of the round just ended
 * (null: none); `clear` drops both (the player acted, or dismissed the summary). */
export function usePace(view: View): {
  held: Trick | null;
  summary: RoundSummary | null;
  clear: () => void;
  dismiss: () => void;
} {
  const before = useRef<{ round: number; scores: number[]; tricks: number } | null>(null);
  const [held, setHeld] = useState<Trick | null>(null);
  const [summary, setSummary] = useState<RoundSummary | null>(null);
  const tricks = "tricks" in view ? view.tricks : [];

  useEffect(() => {
    const old = before.current;
    before.current = { round: view.round, scores: [...view.scores], tricks: tricks.length };
    if (!old) return;
    if (view.round !== old.round) {
      setSummary({ round: old.round, scores: view.scores.map((total, i) => total - (old.scores[i] ?? 0)) });
      setHeld(null);
      return;
    }
    if (tricks.length > old.tricks) {
      setHeld(tricks.at(-1) ?? null);
    }
  }, [view]);

  useEffect(() => {
    if (!held) return;
    const timer = setTimeout(() => setHeld(null), HOLD_MS);
    return () => clearTimeout(timer);
  }, [held]);

  return {
    held,
    summary,
    clear: () => {
      setHeld(null);
      setSummary(null);
    },
    dismiss: () => setSummary(null),
  };
}
