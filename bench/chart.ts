// The scale bench's chart: lines of measured values against workspace size, log scales on both axes (a straight line
// of slope 1 is time growing linearly with files), one panel per quantity, two panels a row, as a self-contained SVG
// the docs show.

/** One line of a panel: its label, colour and a value per point of the x axis (undefined where not measured). */
export interface Series {
  label: string;
  colour: string;
  values: (number | undefined)[];
  /** Drawn dashed: a reference tool's line beside gg's. */
  dashed?: boolean;
}

/** One panel: a title, its unit, and its lines over the shared x axis. */
export interface Panel {
  title: string;
  unit: string;
  series: Series[];
}

const WIDTH = 460;
const HEIGHT = 320;
const MARGIN = { left: 58, right: 16, top: 30, bottom: 84 };

const escape = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
/** Powers of ten (and their 2 and 5 multiples) covering [low, high]. */
function ticks(low: number, high: number): number[] {
  const out: number[] = [];
  for (let decade = 10 ** Math.floor(Math.log10(low)); decade <= high; decade *= 10) {
    for (const step of [1, 2, 5]) if (decade * step >= low && decade * step <= high) out.push(decade * step);
  }
  return out;
}
const short = (value: number): string => (value >= 1e6 ? `${value / 1e6}M` : value >= 1e3 ? `${value / 1e3}k` : String(value));

/** One panel: axes, grid, lines and legend. */
function panel({ title, unit, series }: Panel, xs: number[]): string {
  const values = series.flatMap((line) => line.values.filter((value): value is number => value !== undefined && value > 0));
  const [low, high] = [Math.min(...values) / 1.5, Math.max(...values) * 1.5];
  const [xLow, xHigh] = [Math.min(...xs) / 1.3, Math.max(...xs) * 1.3];
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (value: number): number => MARGIN.left + (plotW * Math.log(value / xLow)) / Math.log(xHigh / xLow);
  const y = (value: number): number => MARGIN.top + plotH - (plotH * Math.log(value / low)) / Math.log(high / low);
  const parts = [`<text x="${WIDTH / 2}" y="18" text-anchor="middle" font-weight="bold">${escape(title)}</text>`];
  for (const tick of ticks(low, high)) {
    parts.push(`<line x1="${x(xLow)}" x2="${x(xHigh)}" y1="${y(tick)}" y2="${y(tick)}" stroke="#ddd"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${y(tick) + 4}" text-anchor="end" font-size="11">${short(tick)}</text>`);
  }
  for (const tick of ticks(xLow, xHigh).filter((value) => Number.isInteger(Math.log10(value)))) {
    parts.push(`<line x1="${x(tick)}" x2="${x(tick)}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#ddd"/>`);
    parts.push(`<text x="${x(tick)}" y="${MARGIN.top + plotH + 15}" text-anchor="middle" font-size="11">${short(tick)}</text>`);
  }
  parts.push(`<text x="14" y="${MARGIN.top + plotH / 2}" transform="rotate(-90 14 ${MARGIN.top + plotH / 2})" text-anchor="middle" font-size="11">${escape(unit)}</text>`);
  parts.push(`<text x="${MARGIN.left + plotW / 2}" y="${MARGIN.top + plotH + 30}" text-anchor="middle" font-size="11">files in the workspace (log scale)</text>`);
  series.forEach((line, k) => {
    const points = line.values.flatMap((value, i) => (value === undefined || value <= 0 ? [] : [`${x(xs[i] as number).toFixed(1)},${y(value).toFixed(1)}`]));
    const dash = line.dashed ? ' stroke-dasharray="5 4"' : "";
    parts.push(`<polyline fill="none" stroke="${line.colour}" stroke-width="2"${dash} points="${points.join(" ")}"/>`);
    for (const point of points) parts.push(`<circle cx="${point.split(",")[0]}" cy="${point.split(",")[1]}" r="3" fill="${line.colour}"/>`);
    const legendY = HEIGHT - 30 + Math.floor(k / 3) * 14;
    const legendX = MARGIN.left + (k % 3) * 130;
    parts.push(`<line x1="${legendX}" x2="${legendX + 18}" y1="${legendY - 4}" y2="${legendY - 4}" stroke="${line.colour}" stroke-width="2"${dash}/>`);
    parts.push(`<text x="${legendX + 22}" y="${legendY}" font-size="11">${escape(line.label)}</text>`);
  });
  return parts.join("\n");
}

/** The SVG of `panels`, two a row, over the points `xs` (files). */
export function chartSvg(panels: Panel[], xs: number[]): string {
  const width = WIDTH * Math.min(2, panels.length);
  const height = HEIGHT * Math.ceil(panels.length / 2);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    ...panels.map((one, i) => `<g transform="translate(${(i % 2) * WIDTH} ${Math.floor(i / 2) * HEIGHT})">\n${panel(one, xs)}\n</g>`),
    "</svg>",
    "",
  ].join("\n");
}
