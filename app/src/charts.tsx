// Small inline SVG charts, no library: a line chart (each player's total over the rounds of a
// sheet) and a horizontal bar chart (wins per ruleset, an average per role). Each is one
// `role="img"` named by its title and described by its numbers (`aria-describedby`), and its
// screen shows the same numbers as text (a table or a list): the picture is for the eye only.

import { useId } from "preact/hooks";

/** Colours that read on white (3:1 at least), and a marker shape and a dash per series, so a
 * line is told from the others without its colour. */
const COLOURS = ["#1d3557", "#b3261e", "#2a7d2e", "#8a4f00", "#6a1b9a", "#00677f", "#5d4037", "#ad1457"];
const DASHES = ["", "6 3", "2 3", "8 3 2 3"];

export function colour(i: number): string {
  return COLOURS[i % COLOURS.length] ?? "#1d3557";
}

function Marker({ i, x, y }: { i: number; x: number; y: number }) {
  const fill = colour(i);
  switch (i % 4) {
    case 0:
      return <circle cx={x} cy={y} r={3.5} fill={fill} />;
    case 1:
      return <rect x={x - 3.5} y={y - 3.5} width={7} height={7} fill={fill} />;
    case 2:
      return <path d={`M${x} ${y - 4.5}L${x + 4} ${y + 3}L${x - 4} ${y + 3}Z`} fill={fill} />;
    default:
      return <path d={`M${x} ${y - 4.5}L${x + 4.5} ${y}L${x} ${y + 4.5}L${x - 4.5} ${y}Z`} fill={fill} />;
  }
}

/** A round number for the axis: 1, 2 or 5 times a power of ten. */
function step(span: number): number {
  const raw = span / 4;
  const power = 10 ** Math.floor(Math.log10(raw || 1));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}

export interface Series {
  name: string;
  values: number[];
}

/** Each series' values over the rounds (x: 0 = before the first round, then round 1 …). */
export function LineChart({ title, desc, series }: { title: string; desc: string; series: Series[] }) {
  const id = useId();
  const W = 340;
  const H = 200;
  const left = 36;
  const right = 10;
  const top = 10;
  const bottom = 24;
  const count = Math.max(1, ...series.map((s) => s.values.length));
  const all = series.flatMap((s) => s.values);
  const lo0 = Math.min(0, ...all);
  const hi0 = Math.max(10, ...all);
  const tick = step(hi0 - lo0);
  const lo = Math.floor(lo0 / tick) * tick;
  const hi = Math.ceil(hi0 / tick) * tick;
  const x = (i: number) => left + (count < 2 ? 0 : (i * (W - left - right)) / (count - 1));
  const y = (v: number) => top + ((hi - v) * (H - top - bottom)) / (hi - lo || 1);
  const ticks: number[] = [];
  for (let v = lo; v <= hi; v += tick) ticks.push(v);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-t`} aria-describedby={`${id}-d`}>
        <title id={`${id}-t`}>{title}</title>
        <desc id={`${id}-d`}>{desc}</desc>
        {ticks.map((v) => (
          <g key={v}>
            <line x1={left} x2={W - right} y1={y(v)} y2={y(v)} stroke={v === 0 ? "#4a4a55" : "#d8d8e0"} />
            <text x={left - 4} y={y(v) + 4} text-anchor="end" font-size="11" fill="#1b1b1f">
              {v}
            </text>
          </g>
        ))}
        {Array.from({ length: count }, (_, i) => (
          <text key={i} x={x(i)} y={H - 8} text-anchor="middle" font-size="11" fill="#1b1b1f">
            {i}
          </text>
        ))}
        {series.map((s, i) => (
          <g key={s.name + String(i)}>
            <polyline
              points={s.values.map((v, r) => `${x(r)},${y(v)}`).join(" ")}
              fill="none"
              stroke={colour(i)}
              stroke-width={2}
              stroke-dasharray={DASHES[i % DASHES.length]}
            />
            {s.values.map((v, r) => (
              <Marker key={r} i={i} x={x(r)} y={y(v)} />
            ))}
          </g>
        ))}
      </svg>
      <figcaption>
        <ul class="legend" aria-hidden="true">
          {series.map((s, i) => (
            <li key={s.name + String(i)}>
              <svg viewBox="0 0 24 10" width="24" height="10">
                <line x1={0} x2={24} y1={5} y2={5} stroke={colour(i)} stroke-width={2} stroke-dasharray={DASHES[i % DASHES.length]} />
                <Marker i={i} x={12} y={5} />
              </svg>{" "}
              {s.name}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}

export interface Bar {
  label: string;
  /** The filled part (wins, an average: may be negative). */
  value: number;
  /** The track behind it (games played), when the bar is a part of a whole. */
  total?: number;
  /** What is written at the end of the bar. */
  text: string;
}

/** One horizontal bar per row, its label above it; negative values go left of the zero line. */
export function BarChart({ title, desc, bars }: { title: string; desc: string; bars: Bar[] }) {
  const id = useId();
  const W = 340;
  const row = 44;
  const H = Math.max(1, bars.length) * row + 4;
  const left = 4;
  const right = 64;
  const lo = Math.min(0, ...bars.map((b) => b.value));
  const hi = Math.max(1, ...bars.map((b) => Math.max(b.value, b.total ?? 0)));
  const x = (v: number) => left + ((v - lo) * (W - left - right)) / (hi - lo || 1);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-t`} aria-describedby={`${id}-d`}>
        <title id={`${id}-t`}>{title}</title>
        <desc id={`${id}-d`}>{desc}</desc>
        {bars.map((bar, i) => {
          const top = i * row + 19;
          const from = Math.min(x(0), x(bar.value));
          const width = Math.abs(x(bar.value) - x(0));
          return (
            <g key={bar.label}>
              <text x={left} y={top - 5} font-size="13" fill="#1b1b1f">
                {bar.label}
              </text>
              {bar.total !== undefined ? (
                <rect x={x(0)} y={top} width={Math.max(0, x(bar.total) - x(0))} height={16} fill="#e3e3ea" />
              ) : null}
              <rect x={from} y={top} width={Math.max(width, 1)} height={16} fill={colour(i)} />
              <text x={Math.max(x(bar.value), x(bar.total ?? 0), x(0)) + 4} y={top + 12} font-size="13" fill="#1b1b1f">
                {bar.text}
              </text>
            </g>
          );
        })}
        {lo < 0 ? <line x1={x(0)} x2={x(0)} y1={0} y2={H} stroke="#4a4a55" /> : null}
      </svg>
    </figure>
  );
}
