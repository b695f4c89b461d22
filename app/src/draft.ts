// A round being typed survives Back, Forward and a reload: its draft is kept in
// sessionStorage (this tab only, gone with it) under its sheet and round, restored when the
// round's entry opens again, and dropped once the round is saved. A correction is never kept:
// it starts from the stored round.

import { useEffect, useState } from "preact/hooks";
import type { Dispatch, StateUpdater } from "preact/hooks";

const PREFIX = "numrules.draft.";

/** The storage key of a sheet's round `n` (its parts add `.bids`, `.tricks` …). */
export function draftKey(sheet: string, n: number): string {
  return `${PREFIX}${sheet}.${n}`;
}

/** Whether `stored` has the shape of `fresh` (same kinds, same keys, arrays of one length): a
 * draft kept by another version of the app, or for another table, is not restored. */
function sameShape(stored: unknown, fresh: unknown): boolean {
  if (fresh === null || stored === null) return fresh === stored || typeof fresh !== "object" || typeof stored !== "object";
  if (Array.isArray(fresh)) {
    // one entry a player: as many; an empty list (cards to add) takes any list
    if (!Array.isArray(stored)) return false;
    return fresh.length === 0 || (stored.length === fresh.length && stored.every((one, i) => sameShape(one, fresh[i])));
  }
  if (typeof fresh === "object") {
    if (typeof stored !== "object" || Array.isArray(stored)) return false;
    const keys = Object.keys(fresh);
    return keys.length === Object.keys(stored).length && keys.every((k) => k in stored);
  }
  return typeof stored === typeof fresh;
}

/** `useState` whose value is kept under `key` (none: not kept) and restored from it. */
export function useDraft<T>(
  key: string | undefined,
  init: () => T,
): [T, Dispatch<StateUpdater<T>>] {
  const [value, setValue] = useState<T>(() => {
    const fresh = init();
    if (!key) return fresh;
    try {
      const raw = sessionStorage.getItem(key);
      if (raw === null) return fresh;
      const stored: T = JSON.parse(raw);
      return sameShape(stored, fresh) ? stored : fresh;
    } catch {
      return fresh;
    }
  });
  useEffect(() => {
    if (!key) return;
    try {
      sessionStorage.setItem(key, JSON.stringify(value));
    } catch {
      // storage full or refused: the draft is only not kept
    }
  }, [key, value]);
  return [value, setValue];
}

/** Drops every kept part of a sheet's round `n` (it was saved). */
export function clearDraft(sheet: string, n: number): void {
  const key = draftKey(sheet, n);
  for (const stored of Object.keys(sessionStorage)) {
    if (stored === key || stored.startsWith(`${key}.`)) sessionStorage.removeItem(stored);
  }
}
