// Frostbox status page: reads /admin/status/summary and /admin/status/boxes every 10 s and
// draws the box map (canvas, Web Mercator, pan and zoom), the runs chart (SVG) and the
// health panels; reads /admin/verification every minute for how right the alerts were (its
// scores, a reliability diagram, and the regions by CSI in a list and on the map). No
// library, no build step.
"use strict";

(() => {
  const REFRESH_MS = 10000;
  const MAX_LAT = 85.0511;
  const CLASSES = ["none", "frost-risk", "freeze", "hard-freeze", "no-forecast", "fetch-failing"];
  const LABELS = {
    "none": "No frost", "frost-risk": "Frost risk", "freeze": "Freeze", "hard-freeze": "Hard freeze",
    "no-forecast": "No forecast yet", "fetch-failing": "Fetch failing",
  };
  const SEVERITY = { "none": 0, "no-forecast": 1, "fetch-failing": 2, "frost-risk": 3, "freeze": 4, "hard-freeze": 5 };
  const style = getComputedStyle(document.documentElement);
  const COLOURS = Object.fromEntries(CLASSES.map((c) => [c, style.getPropertyValue("--c-" + c).trim()]));
  // The chance of frost (issue #47): five bins, and a colour for boxes without an ensemble.
  const CHANCE_BINS = [
    { id: "p0", label: "under 10 %", below: 0.1 }, { id: "p1", label: "10–30 %", below: 0.3 },
    { id: "p2", label: "30–60 %", below: 0.6 }, { id: "p3", label: "60–90 %", below: 0.9 },
    { id: "p4", label: "90 % or more", below: Infinity },
  ];
  const CHANCE_COLOURS = Object.fromEntries([...CHANCE_BINS.map((b) => b.id), "unknown"].map((id) => [id, style.getPropertyValue("--chance-" + id).trim()]));
  const LEVELS = ["frost-risk", "freeze", "hard-freeze"];
  // How right the alerts were (issue #48): regions coloured by CSI in four bins, grey without one.
  const VERIFICATION_MS = 60000;
  const CSI_BINS = [
    { id: "c0", label: "under 0.2", below: 0.2 }, { id: "c1", label: "0.2–0.4", below: 0.4 },
    { id: "c2", label: "0.4–0.6", below: 0.6 }, { id: "c3", label: "0.6 or more", below: Infinity },
  ];
  const CSI_COLOURS = Object.fromEntries([...CSI_BINS.map((b) => b.id), "none"].map((id) => [id, style.getPropertyValue("--csi-" + id).trim()]));
  const REGION_RADIUS = 8;
  const SEA = style.getPropertyValue("--sea").trim();
  const LAND = style.getPropertyValue("--land").trim();
  const COAST = style.getPropertyValue("--coast").trim();

  const $ = (selector) => document.querySelector(selector);
  const canvas = $("#map");
  const context = canvas.getContext("2d");
  const tooltip = $("#tooltip");

  const state = {
    view: { lon: 10, lat: 25, zoom: 0 },
    land: [],
    boxes: null,
    summary: null,
    items: [],
    pinned: null,
    // "auto" (chance of freeze when the listed boxes carry chances, else verdicts), "verdict" or a level.
    colourBy: "auto",
    detail: null,
    detailLoads: 0,
    boxRequest: 0,
    boxLoads: 0,
    summaryLoads: 0,
    // The last answer of /admin/verification; `{ off: true }` when the server keeps no nights.
    verification: null,
    verificationLevel: "freeze",
    verificationLoads: 0,
    showRegions: true,
  };

  // MARK: formatting

  const escapeHTML = (text) => String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const number = (value) => (value === null || value === undefined ? "–" : Number(value).toLocaleString("en"));
  const degrees = (value, positive, negative) => `${Math.abs(value).toFixed(2)}° ${value >= 0 ? positive : negative}`;
  function duration(ms) {
    if (ms < 1000) return `${ms} ms`;
    if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
    return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
  }
  function age(seconds) {
    if (seconds === null || seconds === undefined) return "none yet";
    if (seconds < 90) return `${seconds} s`;
    if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
    if (seconds < 172800) return `${(seconds / 3600).toFixed(1)} h`;
    return `${Math.round(seconds / 86400)} days`;
  }
  const percent = (p) => `${Math.round(p * 100)} %`;
  const celsius = (value) => `${value < 0 ? "−" : ""}${Math.abs(value).toFixed(1).replace(/\.0$/, "")} °C`;
  const time = (iso) => (iso ? new Date(iso).toISOString().replace("T", " ").slice(0, 16) + " UTC" : "–");

  function showProblem(text) {
    const box = $("#problem");
    box.textContent = text || "";
    box.hidden = !text;
  }

  async function fetchAdmin(url) {
    // Built on the origin, so that a page opened as http://user:token@host/status still fetches.
    const response = await fetch(new URL(url, window.location.origin), { credentials: "same-origin", cache: "no-store" });
    if (response.status === 401) throw new Error("The admin token was refused (401): reload the page to log in again.");
    return response;
  }

  async function getJSON(url) {
    const response = await fetchAdmin(url);
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    return response.json();
  }

  // MARK: projection (Web Mercator; the world is 256 × 2^zoom CSS pixels wide)

  const size = () => ({ width: canvas.clientWidth, height: canvas.clientHeight });
  const worldWidth = () => 256 * Math.pow(2, state.view.zoom);
  const clampLat = (lat) => Math.max(-MAX_LAT, Math.min(MAX_LAT, lat));
  const mercatorX = (lon) => (lon + 180) / 360;
  function mercatorY(lat) {
    const s = Math.sin((clampLat(lat) * Math.PI) / 180);
    return 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI);
  }
  const inverseY = (y) => (Math.atan(Math.sinh((0.5 - y) * 2 * Math.PI)) * 180) / Math.PI;

  /// Canvas position of a point, without wrapping (add multiples of worldWidth for copies).
  function project(lon, lat) {
    const { width, height } = size();
    const world = worldWidth();
    return {
      x: (mercatorX(lon) - mercatorX(state.view.lon)) * world + width / 2,
      y: (mercatorY(lat) - mercatorY(state.view.lat)) * world + height / 2,
    };
  }

  function unproject(x, y) {
    const { width, height } = size();
    const world = worldWidth();
    return {
      lon: (mercatorX(state.view.lon) + (x - width / 2) / world) * 360 - 180,
      lat: inverseY(mercatorY(state.view.lat) + (y - height / 2) / world),
    };
  }

  /// The copies of x (one per world width) that fall within the canvas, with a margin.
  function copies(x, margin) {
    const world = worldWidth();
    const { width } = size();
    const result = [];
    let first = x - Math.ceil((x + margin) / world) * world;
    for (let at = first; at < width + margin; at += world) if (at > -margin) result.push(at);
    return result;
  }

  function minimumZoom() {
    return Math.max(0, Math.log2(Math.max(1, size().width) / 256));
  }

  function setView(lon, lat, zoom) {
    const z = Math.max(minimumZoom(), Math.min(18, zoom));
    let wrapped = ((((lon + 180) % 360) + 360) % 360) - 180;
    state.view = { lon: wrapped, lat: Math.max(-80, Math.min(80, lat)), zoom: z };
    draw();
    scheduleBoxes();
  }

  // MARK: chance of frost

  /// The level whose chance colours the boxes, or null when they show their verdict: only
  /// single boxes carry chances (cells would need every box's ensemble).
  function chanceLevel() {
    const data = state.boxes;
    if (!data || data.mode !== "boxes" || state.colourBy === "verdict") return null;
    if (state.colourBy !== "auto") return state.colourBy;
    return data.boxes.some((b) => boxChance(b, "freeze") !== null) ? "freeze" : null;
  }

  /// A box's chance of `level` on the likelier of tonight and tomorrow night; null without an ensemble.
  function boxChance(box, level) {
    let best = null;
    for (const night of [box.tonight, box.tomorrow]) {
      const p = night && night.chance ? night.chance.by_level[level] : undefined;
      if (p !== undefined && (best === null || p > best)) best = p;
    }
    return best;
  }

  const chanceBin = (p) => (p === null ? "unknown" : CHANCE_BINS.find((b) => p < b.below).id);

  function levelWords(level) {
    const threshold = state.boxes && state.boxes.thresholds_c ? state.boxes.thresholds_c[level] : undefined;
    return threshold === undefined ? LABELS[level] : `${celsius(threshold)} or lower (${LABELS[level].toLowerCase()})`;
  }

  function colourOf(item) {
    if (item.kind === "region") return CSI_COLOURS[regionBin(item.data)];
    const level = item.kind === "box" ? chanceLevel() : null;
    if (level) return CHANCE_COLOURS[chanceBin(boxChance(item.data, level))];
    return COLOURS[item.data.class] || "#fff";
  }

  // MARK: drawing

  function resize() {
    const ratio = window.devicePixelRatio || 1;
    const { width, height } = size();
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    if (state.view.zoom < minimumZoom()) state.view.zoom = minimumZoom();
    draw();
  }

  function drawLand() {
    context.fillStyle = LAND;
    context.strokeStyle = COAST;
    context.lineWidth = 0.7;
    const world = worldWidth();
    const { width } = size();
    for (const ring of state.land) {
      const west = project(ring.west, 0).x, east = project(ring.east, 0).x;
      for (const shift of [-world, 0, world]) {
        if (east + shift < 0 || west + shift > width) continue;
        context.beginPath();
        for (let i = 0; i < ring.points.length; i += 2) {
          const p = project(ring.points[i], ring.points[i + 1]);
          if (i === 0) context.moveTo(p.x + shift, p.y);
          else context.lineTo(p.x + shift, p.y);
        }
        context.closePath();
        context.fill();
        context.stroke();
      }
    }
  }

  /// Everything drawn as a marker, with its shape on the canvas, for hit tests.
  function layoutItems() {
    const items = [];
    const data = state.boxes;
    if (!data) return items;
    if (data.mode === "boxes") {
      for (const box of data.boxes) {
        const a = project(box.lon - 0.025, Math.min(90, box.lat + 0.025));
        const b = project(box.lon + 0.025, Math.max(-90, box.lat - 0.025));
        const w = Math.max(5, b.x - a.x), h = Math.max(5, b.y - a.y);
        const cx = (a.x + b.x) / 2, cy = (a.y + b.y) / 2;
        for (const x of copies(cx, w)) items.push({ kind: "box", data: box, x, y: cy, w, h });
      }
    } else {
      const cellPixels = (data.cell_degrees / 360) * worldWidth();
      for (const cell of data.cells) {
        const p = project(cell.lon, cell.lat);
        const r = Math.max(3, Math.min(cellPixels * 0.7, 2.5 + 1.6 * Math.log2(1 + cell.boxes)));
        for (const x of copies(p.x, r)) items.push({ kind: "cell", data: cell, x, y: p.y, r });
      }
    }
    const level = data.mode === "boxes" ? chanceLevel() : null;
    if (level) items.sort((a, b) => (boxChance(a.data, level) ?? -1) - (boxChance(b.data, level) ?? -1));
    else items.sort((a, b) => SEVERITY[a.data.class] - SEVERITY[b.data.class]);
    // The checked regions above the boxes, so that they are seen and hovered first.
    for (const region of placedRegions()) {
      const p = project(region.longitude, region.latitude);
      for (const x of copies(p.x, REGION_RADIUS)) items.push({ kind: "region", data: region, x, y: p.y, r: REGION_RADIUS });
    }
    return items;
  }

  function draw() {
    const { width, height } = size();
    context.fillStyle = SEA;
    context.fillRect(0, 0, width, height);
    drawLand();
    state.items = layoutItems();
    for (const item of state.items) {
      context.fillStyle = colourOf(item);
      if (item.kind === "box") {
        context.fillRect(item.x - item.w / 2, item.y - item.h / 2, item.w, item.h);
      } else if (item.kind === "region") {
        // A dark rim and a white ring set a region apart from the boxes' cells beneath it.
        context.beginPath();
        context.arc(item.x, item.y, item.r, 0, 2 * Math.PI);
        context.fill();
        context.lineWidth = 2;
        context.strokeStyle = "#ffffff";
        context.stroke();
        context.beginPath();
        context.arc(item.x, item.y, item.r + 1.5, 0, 2 * Math.PI);
        context.lineWidth = 1;
        context.strokeStyle = "#0a1420";
        context.stroke();
      } else {
        context.beginPath();
        context.arc(item.x, item.y, item.r, 0, 2 * Math.PI);
        context.fill();
      }
    }
    if (state.pinned) showTooltip(state.pinned);
  }

  // MARK: hover and tap details

  function hit(x, y) {
    for (let i = state.items.length - 1; i >= 0; i--) {
      const item = state.items[i];
      if (item.kind === "box") {
        if (Math.abs(x - item.x) <= item.w / 2 + 1 && Math.abs(y - item.y) <= item.h / 2 + 1) return item;
      } else if (Math.hypot(x - item.x, y - item.y) <= item.r + 2) {
        return item;
      }
    }
    return null;
  }

  function nightLine(label, night) {
    if (!night) return `${label}: no forecast`;
    const minimum = night.minimum_c === null || night.minimum_c === undefined ? "–" : `${night.minimum_c.toFixed(1)} °C`;
    const line = `${label} (${night.night}): <b>${escapeHTML(LABELS[night.level] || night.level)}</b>, min ${minimum}`;
    if (!night.chance) return line;
    const thresholds = (state.boxes && state.boxes.thresholds_c) || {};
    const chances = LEVELS.filter((l) => night.chance.by_level[l] !== undefined)
      .map((l) => `${thresholds[l] === undefined ? LABELS[l] : "≤ " + celsius(thresholds[l])} ${percent(night.chance.by_level[l])}`);
    return `${line}<br>&nbsp;&nbsp;chance: ${chances.join(" · ")}`;
  }

  /// The distribution behind a night's chance, as a small SVG: a histogram of the members'
  /// minima, or the normal curve of the mean and spread, with the levels' thresholds marked.
  function distribution(night, thresholds) {
    const chance = night.chance;
    if (!chance) return "";
    const width = 230, height = 92, left = 6, right = 6, top = 12, bottom = 16;
    const levelOf = (t) => LEVELS.slice().reverse().find((l) => thresholds[l] !== undefined && t <= thresholds[l]) || "none";
    const marks = LEVELS.filter((l) => thresholds[l] !== undefined).map((l) => thresholds[l]);
    let parts = [], kind, lo, hi;
    // The x of a temperature, once the branch below has set the range.
    const x = (t) => left + ((t - lo) / (hi - lo)) * (width - left - right);
    if (chance.member_minima_c && chance.member_minima_c.length) {
      kind = "members";
      const minima = chance.member_minima_c;
      lo = Math.floor(Math.min(minima[0], ...marks) - 0.5);
      hi = Math.ceil(Math.max(minima[minima.length - 1], ...marks) + 0.5);
      const step = Math.max(1, Math.ceil((hi - lo) / 24));
      const bins = [];
      for (let at = lo; at < hi; at += step) bins.push({ from: at, to: at + step, count: 0 });
      // Bins closed on the right, so that a member exactly at a threshold sits in that level's bar.
      for (const value of minima) {
        const bin = bins[Math.max(0, Math.min(bins.length - 1, Math.ceil((value - lo) / step) - 1))];
        bin.count += 1;
      }
      hi = lo + bins.length * step;
      const most = Math.max(1, ...bins.map((b) => b.count));
      for (const bin of bins) {
        const h = (bin.count / most) * (height - top - bottom);
        parts.push(`<rect class="bin" data-from="${bin.from}" data-count="${bin.count}" x="${x(bin.from) + 0.5}" y="${height - bottom - h}" width="${Math.max(1, x(bin.to) - x(bin.from) - 1)}" height="${h}" fill="${COLOURS[levelOf(bin.to - step / 2)]}"/>`);
      }
      parts.push(`<text x="${width - right}" y="${top + 2}" text-anchor="end">${chance.members} members' minima</text>`);
    } else if (chance.mean_c !== undefined && chance.spread_c !== undefined) {
      kind = "normal";
      const mean = chance.mean_c, spread = Math.max(0.2, chance.spread_c);
      lo = Math.floor(Math.min(mean - 3.5 * spread, ...marks) - 0.5);
      hi = Math.ceil(Math.max(mean + 3.5 * spread, ...marks) + 0.5);
      const density = (t) => Math.exp(-0.5 * ((t - mean) / spread) ** 2);
      const y = (d) => height - bottom - d * (height - top - bottom);
      // The area at or below each threshold in its level's colour, then the curve.
      const edges = [lo, ...marks.slice().sort((a, b) => a - b).filter((t) => t > lo && t < hi), hi];
      for (let i = 0; i + 1 < edges.length; i++) {
        const points = [];
        for (let k = 0; k <= 24; k++) { const t = edges[i] + ((edges[i + 1] - edges[i]) * k) / 24; points.push(`${x(t)},${y(density(t))}`); }
        parts.push(`<polygon class="area" points="${x(edges[i])},${y(0)} ${points.join(" ")} ${x(edges[i + 1])},${y(0)}" fill="${COLOURS[levelOf((edges[i] + edges[i + 1]) / 2)]}"/>`);
      }
      const curve = [];
      for (let k = 0; k <= 96; k++) { const t = lo + ((hi - lo) * k) / 96; curve.push(`${x(t)},${y(density(t))}`); }
      parts.push(`<polyline class="curve" points="${curve.join(" ")}"/>`);
      parts.push(`<text x="${width - right}" y="${top + 2}" text-anchor="end">mean ${celsius(chance.mean_c)}, spread ${celsius(chance.spread_c)}</text>`);
    } else {
      return "";
    }
    parts.push(...marks.map((t) => `<line class="threshold" x1="${x(t)}" x2="${x(t)}" y1="${top}" y2="${height - bottom}"/>`));
    parts.push(`<text x="${left}" y="${height - 4}">${celsius(lo)}</text><text x="${width - right}" y="${height - 4}" text-anchor="end">${celsius(hi)}</text>`);
    return `<svg class="distribution" data-night="${escapeHTML(night.night)}" data-kind="${kind}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join("")}</svg>`;
  }

  /// The pinned box's nights with their distributions, once `/admin/status/boxes/{key}` answered.
  function detailLines(d) {
    const detail = state.detail;
    if (!detail || detail.key !== d.key) return [state.pinned && state.pinned.data === d ? "Loading the chance of frost…" : "Tap for the chance of frost in detail."];
    const data = detail.data;
    if (!data.chance) return ["No ensemble cached for this box: its alerts follow the verdict."];
    const charts = data.nights.filter((n) => n.chance).slice(0, 2)
      .map((night) => `<figure>${distribution(night, data.thresholds_c)}<figcaption>Night of ${escapeHTML(night.night)}</figcaption></figure>`);
    return [`Chance from ${escapeHTML(data.chance.model)}, fetched ${age(data.chance.age_s)} ago`, `<div class="charts">${charts.join("")}</div>`];
  }

  function details(item) {
    const d = item.data;
    if (item.kind === "region") return regionDetails(d);
    if (item.kind === "box") {
      const lines = [
        `<b>Box ${escapeHTML(d.box)}</b> · key ${d.key}`,
        `Centre ${degrees(d.lat, "N", "S")}, ${degrees(d.lon, "E", "W")}`,
        `Places: ${d.names.length ? escapeHTML(d.names.join(", ")) : "–"}`,
        `Subscribers: ${number(d.subscribers)}`,
        nightLine("Tonight", d.tonight),
        nightLine("Tomorrow night", d.tomorrow),
        `Forecast age: ${age(d.forecast_age_s)}`,
        `Map: <span class="swatch" style="background:${COLOURS[d.class]}"></span> ${escapeHTML(LABELS[d.class])}`,
      ];
      const level = chanceLevel();
      if (level) {
        const p = boxChance(d, level);
        lines.push(`Chance of ${escapeHTML(levelWords(level))}: <span class="swatch" style="background:${CHANCE_COLOURS[chanceBin(p)]}"></span> ${p === null ? "no ensemble" : percent(p)}`);
      }
      if (d.chance || (state.detail && state.detail.key === d.key)) lines.push(...detailLines(d));
      if (d.fetch_failure) lines.push(`Fetch failing since ${time(d.failing_since)}: ${escapeHTML(d.fetch_failure)}`);
      return lines.join("<br>");
    }
    const counts = CLASSES.filter((c) => d.classes[c]).map((c) => `<span class="swatch" style="background:${COLOURS[c]}"></span> ${escapeHTML(LABELS[c])}: ${number(d.classes[c])}`);
    return [
      `<b>${number(d.boxes)} box${d.boxes === 1 ? "" : "es"}</b> around ${degrees(d.lat, "N", "S")}, ${degrees(d.lon, "E", "W")}`,
      `Subscribers: ${number(d.subscribers)}`,
      ...counts,
      "Zoom in for single boxes.",
    ].join("<br>");
  }

  function showTooltip(item) {
    tooltip.innerHTML = details(item);
    tooltip.classList.toggle("wide", tooltip.querySelector(".charts") !== null);
    tooltip.hidden = false;
    const { width, height } = size();
    const left = Math.min(item.x + 14, width - tooltip.offsetWidth - 6);
    const top = Math.min(item.y + 14, height - tooltip.offsetHeight - 6);
    tooltip.style.left = `${Math.max(6, left)}px`;
    tooltip.style.top = `${Math.max(6, top)}px`;
  }

  function hideTooltip() {
    if (!state.pinned) tooltip.hidden = true;
  }

  // MARK: pan and zoom

  let drag = null;
  canvas.addEventListener("pointerdown", (event) => {
    canvas.setPointerCapture(event.pointerId);
    drag = { x: event.offsetX, y: event.offsetY, view: { ...state.view }, moved: false };
  });
  canvas.addEventListener("pointermove", (event) => {
    if (drag) {
      const dx = event.offsetX - drag.x, dy = event.offsetY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (drag.moved) {
        canvas.classList.add("dragging");
        const world = 256 * Math.pow(2, drag.view.zoom);
        const lon = drag.view.lon - (dx / world) * 360;
        const lat = inverseY(mercatorY(drag.view.lat) - dy / world);
        state.pinned = null;
        tooltip.hidden = true;
        state.view = { lon: ((((lon + 180) % 360) + 360) % 360) - 180, lat: Math.max(-80, Math.min(80, lat)), zoom: drag.view.zoom };
        draw();
        return;
      }
    }
    const item = hit(event.offsetX, event.offsetY);
    if (item && !state.pinned) showTooltip(item);
    else if (!item) hideTooltip();
  });
  canvas.addEventListener("pointerup", (event) => {
    const tapped = drag && !drag.moved;
    canvas.classList.remove("dragging");
    drag = null;
    if (tapped) {
      const item = hit(event.offsetX, event.offsetY);
      state.pinned = item;
      if (item) showTooltip(item);
      else tooltip.hidden = true;
      if (item && item.kind === "box") loadDetail(item.data.key);
    } else {
      scheduleBoxes();
    }
  });
  canvas.addEventListener("pointerleave", () => hideTooltip());
  canvas.addEventListener("wheel", (event) => {
    event.preventDefault();
    zoomAround(event.offsetX, event.offsetY, event.deltaY < 0 ? 0.5 : -0.5);
  }, { passive: false });
  canvas.addEventListener("dblclick", (event) => zoomAround(event.offsetX, event.offsetY, 1));

  function zoomAround(x, y, delta) {
    const before = unproject(x, y);
    const zoom = Math.max(minimumZoom(), Math.min(18, state.view.zoom + delta));
    state.view.zoom = zoom;
    const after = unproject(x, y);
    state.pinned = null;
    tooltip.hidden = true;
    setView(state.view.lon + before.lon - after.lon, inverseY(mercatorY(state.view.lat) + mercatorY(before.lat) - mercatorY(after.lat)), zoom);
  }
  const centre = () => ({ x: size().width / 2, y: size().height / 2 });
  $("#zoom-in").addEventListener("click", () => zoomAround(centre().x, centre().y, 1));
  $("#zoom-out").addEventListener("click", () => zoomAround(centre().x, centre().y, -1));
  $("#zoom-reset").addEventListener("click", () => setView(10, 25, minimumZoom()));

  // MARK: data

  let boxTimer = null;
  function scheduleBoxes() {
    // An answer still on its way is for the view left behind: drop it, not draw it.
    state.boxRequest += 1;
    clearTimeout(boxTimer);
    boxTimer = setTimeout(loadBoxes, 200);
  }

  function viewportQuery() {
    const { width, height } = size();
    const a = unproject(0, 0), b = unproject(width, height);
    let west = a.lon, east = b.lon;
    if (east - west >= 360) { west = -180; east = 180; }
    const round = (v) => Math.round(v * 1000) / 1000;
    const params = new URLSearchParams({
      west: round(Math.max(-540, west)), east: round(Math.min(540, east)),
      // Mercator stops short of the poles; boxes beyond are drawn on its edge, so ask for them.
      south: b.lat <= -MAX_LAT + 0.01 ? -90 : round(Math.max(-90, b.lat)),
      north: a.lat >= MAX_LAT - 0.01 ? 90 : round(Math.min(90, a.lat)),
      zoom: Math.max(0, Math.min(20, Math.floor(state.view.zoom))),
    });
    return params.toString();
  }

  async function loadBoxes() {
    const request = ++state.boxRequest;
    try {
      const data = await getJSON(`/admin/status/boxes?${viewportQuery()}`);
      if (request !== state.boxRequest) return;
      state.boxes = data;
      state.boxLoads += 1;
      renderLegend(data);
      draw();
      showProblem("");
    } catch (error) {
      showProblem(error.message);
    }
  }

  async function loadDetail(key) {
    try {
      const data = await getJSON(`/admin/status/boxes/${key}`);
      if (!state.pinned || state.pinned.data.key !== key) return;
      state.detail = { key, data };
      state.detailLoads += 1;
      showTooltip(state.pinned);
    } catch (error) {
      showProblem(error.message);
    }
  }

  function renderLegend(data) {
    const level = chanceLevel();
    $("#colour-by").value = state.colourBy;
    if (level) {
      const counts = {};
      for (const box of data.boxes) { const bin = chanceBin(boxChance(box, level)); counts[bin] = (counts[bin] || 0) + 1; }
      $("#legend").innerHTML = `<li class="legend-title">Chance of ${escapeHTML(levelWords(level))}, tonight or tomorrow night:</li>`
        + [...CHANCE_BINS.map((b) => [b.id, b.label]), ["unknown", "no ensemble"]]
          .map(([id, label]) => `<li data-chance="${id}"><span class="swatch" style="background:${CHANCE_COLOURS[id]}"></span>${escapeHTML(label)} <b>${number(counts[id] || 0)}</b></li>`).join("");
    } else {
      renderClassLegend(data);
    }
    const detail = data.mode === "boxes" ? "single 0.05° boxes" : `cells of ${data.cell_degrees.toFixed(2)}°`;
    $("#map-info").textContent = `${number(data.boxes_in_view)} of ${number(data.total_boxes)} boxes in view, drawn as ${detail}. Drag to pan, wheel or double-click to zoom, hover a marker for details, tap a box for its chance of frost.`;
  }

  function renderClassLegend(data) {
    $("#legend").innerHTML = CLASSES.map((c) => `<li data-class="${c}"><span class="swatch" style="background:${COLOURS[c]}"></span>${escapeHTML(LABELS[c])} <b>${number(data.classes[c] || 0)}</b></li>`).join("");
  }

  $("#colour-by").addEventListener("change", (event) => setColourBy(event.target.value));
  function setColourBy(value) {
    state.colourBy = value;
    if (state.boxes) renderLegend(state.boxes);
    draw();
  }

  async function loadSummary() {
    try {
      const summary = await getJSON("/admin/status/summary");
      state.summary = summary;
      state.summaryLoads += 1;
      renderSummary(summary);
      showProblem("");
    } catch (error) {
      showProblem(error.message);
    }
  }

  function list(element, rows) {
    element.innerHTML = rows.map(([key, value]) => `<dt>${escapeHTML(key)}</dt><dd>${value}</dd>`).join("");
  }

  function renderSummary(summary) {
    const counts = summary.counts;
    const platforms = Object.entries(counts.devices_by_platform || {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([platform, count]) => `${number(count)} ${platform === "ios" ? "iOS" : platform === "android" ? "Android" : platform === "web" ? "browsers" : platform}`);
    const byPlatform = platforms.length > 1 ? ` (${platforms.join(", ")})` : "";
    $("#counts").textContent = `${number(counts.devices)} devices${byPlatform} · ${number(counts.subscriptions)} subscriptions · ${number(counts.boxes)} boxes`;
    $("#updated").textContent = `updated ${time(summary.generated_at)}`;
    renderRuns(summary.runs);
    renderQuota(summary.quota);
    list($("#outbox"), [
      ["Pending", number(summary.outbox.pending)],
      ...Object.entries(summary.outbox.pending_by_class || {}).sort().map(([k, v]) => [`Pending (${k.replace(/-/g, " ")})`, number(v)]),
      ...Object.entries(summary.outbox.recent_failures_by_class).sort().map(([k, v]) => [`Failed (${k}), listed runs`, number(v)]),
    ]);
    const push = summary.push;
    const platformName = (platform) => platform === "ios" ? "iOS" : platform === "android" ? "Android" : platform === "web" ? "browsers" : platform;
    list($("#push"), [
      ["Connections", number(push.connections)],
      // With both platforms connected, each one's (iOS to APNs, Android to FCM).
      ...(Object.values(push.connections_by_platform || {}).filter((n) => n > 0).length > 1
        ? Object.entries(push.connections_by_platform).sort().map(([platform, n]) => [`Connections ${platformName(platform)}`, number(n)])
        : []),
      ["Sent", number(push.sent)],
      ["Confirmed", number(push.confirmed)],
      ["Failed", number(push.failed)],
      ["In flight", number(push.in_flight)],
      ["Mean time to confirm", `${push.average_confirm_ms} ms`],
      ...Object.entries(push.outcomes).sort().map(([k, v]) => [`Outcome ${k}`, number(v)]),
      // With devices on both platforms, the outcomes of each (iOS through APNs, Android through FCM).
      ...(Object.keys(push.outcomes_by_platform || {}).length > 1
        ? Object.entries(push.outcomes_by_platform).sort().flatMap(([platform, outcomes]) =>
            Object.entries(outcomes).sort().map(([k, v]) => [`${platformName(platform)} ${k}`, number(v)]))
        : []),
      // Each paced app: its quota, the time its sends waited, and the pauses FCM asked for.
      ...(push.pacing || []).map((p) => [
        `Pacing ${p.budget}`,
        `${number(p.messages_per_minute)}/min · ${number(p.sent)} sent · waited ${p.waited_seconds.toFixed(1)} s · ` +
          `${number(p.pauses)} pauses${p.paused_for_seconds > 0 ? ` · paused ${p.paused_for_seconds.toFixed(0)} s more` : ""}`,
      ]),
    ]);
    list($("#places"), [
      ["Places stored", number(summary.places.stored)],
      ["Newest data (GeoNames modified)", escapeHTML(summary.places.newest_modified || "–")],
      ["Generation in use", escapeHTML(summary.places.generation || "– (places file updated in place)")],
      ["Switched", escapeHTML(summary.places.switched_at || "– (since start)")],
    ]);
  }

  function renderQuota(quota) {
    const names = { minute: "Last minute", hour: "Last hour", day: "Last day" };
    let html = quota.windows.map((w) => {
      const share = w.budget > 0 ? w.used / w.budget : 0;
      const level = share >= 1 ? "full" : share >= 0.75 ? "warn" : "";
      return `<div class="bar" data-window="${w.window}"><div class="bar-label"><span>${names[w.window] || w.window}</span><span>${number(Math.round(w.used * 10) / 10)} / ${number(w.budget)}</span></div>`
        + `<div class="bar-track"><div class="bar-fill ${level}" style="width:${Math.min(100, share * 100).toFixed(1)}%"></div></div></div>`;
    }).join("");
    html += `<p id="quota-saved">Fetches saved today by model runs: ${number(quota.saved_today || 0)}</p>`;
    if (quota.hold) html += `<p>Paused by the source until ${time(quota.hold.until)}: ${escapeHTML(quota.hold.reason)}</p>`;
    $("#quota").innerHTML = html;
  }

  function renderRuns(runs) {
    const svg = $("#runs-chart");
    const chronological = runs.slice().reverse();
    const width = svg.clientWidth || 600, height = svg.clientHeight || 230;
    const left = 44, right = 52, top = 12, bottom = 26;
    const plotW = width - left - right, plotH = height - top - bottom;
    const maxAlerts = Math.max(1, ...chronological.map((r) => Math.max(r.planned, r.delivered, r.failed)));
    const maxDuration = Math.max(1, ...chronological.map((r) => r.duration_ms));
    const slot = chronological.length ? plotW / chronological.length : plotW;
    const bar = Math.max(2, Math.min(14, (slot - 6) / 3));
    const y = (v) => top + plotH - (v / maxAlerts) * plotH;
    const yd = (v) => top + plotH - (v / maxDuration) * plotH;
    let parts = [];
    for (let i = 0; i <= 4; i++) {
      const value = (maxAlerts * i) / 4, at = y(value);
      parts.push(`<line class="grid" x1="${left}" x2="${width - right}" y1="${at}" y2="${at}"/>`);
      parts.push(`<text x="${left - 6}" y="${at + 4}" text-anchor="end">${number(Math.round(value))}</text>`);
      parts.push(`<text x="${width - right + 6}" y="${at + 4}">${duration(Math.round((maxDuration * i) / 4))}</text>`);
    }
    const points = [];
    chronological.forEach((run, i) => {
      const x0 = left + i * slot + (slot - 3 * bar) / 2;
      [["planned", run.planned], ["delivered", run.delivered], ["failed", run.failed]].forEach(([kind, value], k) => {
        parts.push(`<rect class="${kind}" data-run="${run.id}" data-kind="${kind}" data-value="${value}" x="${x0 + k * bar}" y="${y(value)}" width="${bar - 1}" height="${Math.max(0, top + plotH - y(value))}"/>`);
      });
      const cx = left + i * slot + slot / 2;
      points.push(`${cx},${yd(run.duration_ms)}`);
      parts.push(`<circle class="duration-dot" data-run="${run.id}" cx="${cx}" cy="${yd(run.duration_ms)}" r="2.5"/>`);
      if (chronological.length <= 16 || i % Math.ceil(chronological.length / 16) === 0) {
        parts.push(`<text x="${cx}" y="${height - 8}" text-anchor="middle">#${run.id}</text>`);
      }
      parts.push(`<rect class="hit" data-run="${run.id}" x="${left + i * slot}" y="${top}" width="${slot}" height="${plotH}"/>`);
    });
    if (points.length > 1) parts.push(`<polyline class="duration" points="${points.join(" ")}"/>`);
    if (!chronological.length) parts.push(`<text x="${width / 2}" y="${height / 2}" text-anchor="middle">No notify run yet</text>`);
    parts.push(`<text x="${left}" y="${top - 2}">alerts: <tspan style="fill:var(--planned)">planned</tspan> <tspan style="fill:var(--delivered)">delivered</tspan> <tspan style="fill:var(--failed)">failed</tspan></text>`);
    parts.push(`<text x="${width - right}" y="${top - 2}" text-anchor="end" style="fill:var(--duration)">duration</text>`);
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.innerHTML = parts.join("");
    const byID = new Map(runs.map((r) => [String(r.id), r]));
    const runTip = $("#runs-tooltip");
    svg.querySelectorAll("rect.hit").forEach((rect) => {
      rect.addEventListener("mouseenter", () => {
        const run = byID.get(rect.dataset.run);
        const failures = Object.entries(run.failed_by_class).filter(([, v]) => v > 0).map(([k, v]) => `${k} ${v}`).join(", ");
        runTip.innerHTML = [
          `<b>Run #${run.id}</b> · ${escapeHTML(run.status)}`, `Started ${time(run.started_at)}`,
          `Boxes ${number(run.boxes)} (failed ${number(run.boxes_failed)}, left out for budget ${number(run.boxes_left_out)}, awaiting verification ${number(run.boxes_unverified)})`,
          `Planned ${number(run.planned)} · delivered ${number(run.delivered)} · failed ${number(run.failed)}${failures ? ` (${escapeHTML(failures)})` : ""}`,
          `Duration ${duration(run.duration_ms)}`, run.error ? `Error: ${escapeHTML(run.error)}` : "",
        ].filter(Boolean).join("<br>");
        runTip.hidden = false;
        const box = rect.getBBox();
        runTip.style.left = `${Math.min(box.x + box.width, width - 240) + 14}px`;
        runTip.style.top = `${box.y + 40}px`;
      });
      rect.addEventListener("mouseleave", () => { runTip.hidden = true; });
    });
    $("#runs-table tbody").innerHTML = runs.slice(0, 10).map((r) => `<tr data-run="${r.id}"><td>#${r.id}</td><td>${time(r.started_at)}</td>`
      + `<td class="status-${escapeHTML(r.status)}">${escapeHTML(r.status)}</td><td>${number(r.boxes)}</td><td>${number(r.planned)}</td>`
      + `<td>${number(r.delivered)}</td><td>${number(r.failed)}</td><td>${duration(r.duration_ms)}</td></tr>`).join("");
  }

  // MARK: how right were we (issue #48)

  const csiBin = (csi) => (csi === null || csi === undefined ? "none" : CSI_BINS.find((b) => csi < b.below).id);
  const levelName = (level) => LABELS[level] || level;

  /// A group's scores of the level chosen in the panel.
  const regionLevel = (group) => group.scores.levels.find((l) => l.level === state.verificationLevel) || {};
  /// A group's CSI bin for the chosen level.
  const regionBin = (group) => { const csi = regionLevel(group).csi; return csiBin(csi ? csi.value : null); };

  /// The regions the report could place, when they are to be drawn.
  function placedRegions() {
    const data = state.verification;
    if (!state.showRegions || !data || data.off || !data.regions) return [];
    return data.regions.filter((r) => typeof r.latitude === "number" && typeof r.longitude === "number");
  }

  /// A weighted count or score, with its 95 % interval when sampling leaves one.
  function estimate(value, digits) {
    if (!value) return "–";
    const show = (v) => (digits === 0 ? number(Math.round(v * 100) / 100) : v.toFixed(digits));
    const interval = value.low !== value.high ? ` <span class="interval">(${show(value.low)}–${show(value.high)})</span>` : "";
    return `${show(value.value)}${interval}`;
  }

  function thresholdWords(level) {
    const data = state.verification;
    const threshold = data && data.thresholds_c ? data.thresholds_c[level] : undefined;
    return threshold === undefined ? "" : ` (≤ ${celsius(threshold)})`;
  }

  async function loadVerification() {
    try {
      const response = await fetchAdmin("/admin/verification");
      let data;
      if (response.status === 409) {
        const body = await response.json().catch(() => ({}));
        if (!body.error || body.error.code !== "verification_off") throw new Error(`/admin/verification answered 409`);
        data = { off: true };
      } else if (!response.ok) {
        throw new Error(`/admin/verification answered ${response.status}`);
      } else {
        data = await response.json();
      }
      state.verification = data;
      state.verificationLoads += 1;
      renderVerification();
      draw();
    } catch (error) {
      showProblem(error.message);
    }
  }

  function renderVerification() {
    const data = state.verification;
    const message = $("#verification-message");
    const body = $("#verification-body");
    const placed = !data.off && (data.regions || []).some((r) => typeof r.latitude === "number");
    $("#show-regions-label").hidden = !placed;
    $("#region-legend").hidden = !placed || !state.showRegions;
    if (data.off) {
      message.textContent = "The alerts are not being checked: this server keeps no nights (verification.enabled is false), so there is nothing to score.";
      body.hidden = true;
      return;
    }
    const p = data.progress;
    if (!data.overall.nights) {
      message.textContent = `No nights have been checked yet: ${number(p.chosen)} waiting for the archive, ${number(p.pending)} not yet due.`;
      body.hidden = true;
      return;
    }
    message.textContent = `Alerts checked against the lowest temperature observed over the night${data.since ? `, nights since ${data.since}` : ""}.`;
    body.hidden = false;
    const overall = data.overall;
    $("#verification-levels tbody").innerHTML = overall.levels.map((l) => `<tr data-level="${escapeHTML(l.level)}">`
      + `<th scope="row">${escapeHTML(levelName(l.level))}${escapeHTML(thresholdWords(l.level))}</th>`
      + [["hits", l.hits, 0], ["misses", l.misses, 0], ["false-alarms", l.false_alarms, 0], ["correct-negatives", l.correct_negatives, 0],
        ["pod", l.pod, 2], ["far", l.far, 2], ["csi", l.csi, 2], ["bias", l.bias, 2]]
        .map(([name, value, digits]) => `<td data-score="${name}" data-value="${value ? value.value : ""}">${estimate(value, digits)}</td>`).join("")
      + `<td data-score="brier">${l.brier === null || l.brier === undefined ? "–" : l.brier.toFixed(3)}</td>`
      + `<td data-score="probability-nights">${number(l.probability_nights)}</td></tr>`).join("");
    const error = overall.mean_error_c;
    const errorText = error === null || error === undefined ? "– (no forecast low kept)"
      : `${error > 0 ? "+" : error < 0 ? "−" : ""}${Math.abs(error).toFixed(1)} °C (${error > 0 ? "forecasts too warm" : error < 0 ? "forecasts too cold" : "unbiased"}), over ${number(overall.error_nights)} nights`;
    $("#verification-facts").innerHTML = [
      ["nights", "Nights checked", `${number(overall.nights)}, standing for ${number(overall.weight)} box-nights`],
      ["since", "Since", escapeHTML(data.since || "every night kept")],
      ["observed", "Observed", number(p.observed)],
      ["chosen", "Waiting for the archive", number(p.chosen)],
      ["skipped", "Not drawn (the sample stands for them)", number(p.skipped)],
      ["pending", "Not yet due", number(p.pending)],
      ["unavailable", "Unavailable in the archive", number(p.unavailable)],
      ["error", "Mean forecast error of the night low", errorText],
    ].map(([key, name, value]) => `<dt>${escapeHTML(name)}</dt><dd data-fact="${key}">${value}</dd>`).join("");
    renderReliability();
    renderRegions();
  }

  /// The reliability diagram of the chosen level: forecast chance against observed frequency.
  function renderReliability() {
    const svg = $("#reliability");
    const level = state.verificationLevel;
    const scores = state.verification.overall.levels.find((l) => l.level === level);
    const bins = scores ? scores.reliability : [];
    const width = 300, height = 300, left = 40, right = 12, top = 12, bottom = 36;
    const plotW = width - left - right, plotH = height - top - bottom;
    const x = (p) => left + p * plotW, y = (f) => top + plotH - f * plotH;
    const parts = [];
    for (let i = 0; i <= 5; i++) {
      const v = i / 5;
      parts.push(`<line class="grid" x1="${x(v)}" x2="${x(v)}" y1="${y(0)}" y2="${y(1)}"/><line class="grid" x1="${x(0)}" x2="${x(1)}" y1="${y(v)}" y2="${y(v)}"/>`);
      parts.push(`<text x="${x(v)}" y="${y(0) + 14}" text-anchor="middle">${v.toFixed(1)}</text><text x="${x(0) - 6}" y="${y(v) + 4}" text-anchor="end">${v.toFixed(1)}</text>`);
    }
    parts.push(`<line class="diagonal" x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}"/>`);
    parts.push(`<text x="${left + plotW / 2}" y="${height - 4}" text-anchor="middle">forecast chance of ${escapeHTML(levelName(level).toLowerCase())}</text>`);
    parts.push(`<text transform="translate(11 ${top + plotH / 2}) rotate(-90)" text-anchor="middle">observed frequency</text>`);
    const most = Math.max(1, ...bins.map((b) => b.nights));
    for (const bin of bins) {
      const r = 3 + 8 * Math.sqrt(bin.nights / most);
      parts.push(`<circle class="reliability-point" data-lower="${bin.lower}" data-nights="${bin.nights}" cx="${x(bin.mean_probability)}" cy="${y(bin.observed_frequency)}" r="${r.toFixed(1)}" fill="${COLOURS[level]}">`
        + `<title>Chance ${percent(bin.lower)}–${percent(bin.upper)}: forecast ${percent(bin.mean_probability)}, happened ${percent(bin.observed_frequency)}, ${number(bin.nights)} night${bin.nights === 1 ? "" : "s"}</title></circle>`);
    }
    if (!bins.length) parts.push(`<text x="${left + plotW / 2}" y="${top + plotH / 2}" text-anchor="middle">No checked night had a chance of ${escapeHTML(levelName(level).toLowerCase())}</text>`);
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("data-level", level);
    svg.innerHTML = parts.join("");
  }

  function csiLegend() {
    return [...CSI_BINS.map((b) => [b.id, `CSI ${b.label}`]), ["none", "no CSI"]]
      .map(([id, label]) => `<li data-csi="${id}"><span class="swatch ring" style="background:${CSI_COLOURS[id]}"></span>${escapeHTML(label)}</li>`).join("");
  }

  /// The regions with the chosen level's CSI, in the panel and as the map's second legend.
  function renderRegions() {
    const level = state.verificationLevel;
    const regions = state.verification.regions || [];
    $("#verification-regions-title").textContent = `Regions by CSI of ${levelName(level).toLowerCase()}`;
    $("#verification-legend").innerHTML = csiLegend();
    $("#region-legend").innerHTML = `<li class="legend-title">Checked regions, CSI of ${escapeHTML(levelName(level).toLowerCase())}:</li>${csiLegend()}`;
    $("#verification-regions").innerHTML = regions.length
      ? regions.map((region) => {
        const csi = regionLevel(region).csi;
        const bin = regionBin(region);
        const where = typeof region.latitude === "number" ? `${degrees(region.latitude, "N", "S")}, ${degrees(region.longitude, "E", "W")}` : "not placed";
        return `<li data-region="${escapeHTML(region.key)}" data-csi-bin="${bin}"><span class="swatch ring" style="background:${CSI_COLOURS[bin]}" aria-hidden="true"></span>`
          + `<b>${escapeHTML(region.key)}</b> <span class="region-where">${where}</span>`
          + `<span class="region-csi">CSI ${csi ? estimate(csi, 2) : "–"} · ${number(region.scores.nights)} night${region.scores.nights === 1 ? "" : "s"}</span></li>`;
      }).join("")
      : "<li>No checked night has a known region yet.</li>";
  }

  function regionDetails(region) {
    const scores = regionLevel(region);
    const csi = scores.csi;
    return [
      `<b>Region ${escapeHTML(region.key)}</b> · ${number(region.scores.nights)} nights checked`,
      `CSI of ${escapeHTML(levelName(state.verificationLevel).toLowerCase())}: <span class="swatch" style="background:${CSI_COLOURS[regionBin(region)]}"></span> ${csi ? estimate(csi, 2) : "none (no frost said or seen)"}`,
      `Hits ${estimate(scores.hits, 0)} · misses ${estimate(scores.misses, 0)} · false alarms ${estimate(scores.false_alarms, 0)}`,
    ].join("<br>");
  }

  $("#verification-level").addEventListener("change", (event) => setVerificationLevel(event.target.value));
  function setVerificationLevel(level) {
    state.verificationLevel = level;
    $("#verification-level").value = level;
    if (state.verification && !state.verification.off && state.verification.overall.nights) {
      renderReliability();
      renderRegions();
    }
    draw();
  }

  $("#show-regions").addEventListener("change", (event) => {
    state.showRegions = event.target.checked;
    $("#region-legend").hidden = !state.showRegions;
    state.pinned = null;
    tooltip.hidden = true;
    draw();
  });

  async function loadLand() {
    try {
      const land = await getJSON("/status/land.json");
      state.land = land.rings.map((ring) => {
        const points = new Float64Array(ring.length);
        let x = 0, y = 0;
        for (let i = 0; i < ring.length; i += 2) {
          x += ring[i];
          y += ring[i + 1];
          points[i] = x / land.scale;
          points[i + 1] = y / land.scale;
        }
        let west = Infinity, east = -Infinity;
        for (let i = 0; i < points.length; i += 2) { west = Math.min(west, points[i]); east = Math.max(east, points[i]); }
        return { points, west, east };
      });
      draw();
    } catch (error) {
      showProblem(`The land outline did not load: ${error.message}`);
    }
  }

  // Hooks for the browser test and for poking at the page from the console.
  window.frostboxStatus = {
    colours: COLOURS,
    chanceColours: CHANCE_COLOURS,
    project,
    setView,
    setColourBy,
    // Draws the panels from a summary as `GET /admin/status/summary` answers it.
    renderSummary,
    get chanceLevel() { return chanceLevel(); },
    get detail() { return state.detail; },
    get view() { return { ...state.view }; },
    get boxes() { return state.boxes; },
    get summary() { return state.summary; },
    get loads() { return { boxes: state.boxLoads, summary: state.summaryLoads, land: state.land.length, detail: state.detailLoads }; },
    get items() { return state.items.map((i) => ({ kind: i.kind, x: i.x, y: i.y, class: i.data.class, key: i.data.key, colour: colourOf(i) })); },
    csiColours: CSI_COLOURS,
    setVerificationLevel,
    get verification() { return state.verification; },
    get verificationLoads() { return state.verificationLoads; },
  };

  window.addEventListener("resize", () => { resize(); scheduleBoxes(); });
  resize();
  state.view.zoom = minimumZoom();
  Promise.all([loadLand(), loadBoxes(), loadSummary(), loadVerification()]).then(() => { document.body.dataset.ready = "1"; });
  setInterval(() => { loadBoxes(); loadSummary(); }, REFRESH_MS);
  // The scores move only as nights are checked (a few times a day): once a minute is plenty.
  setInterval(loadVerification, VERIFICATION_MS);
})();
