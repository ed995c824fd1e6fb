// tabletracker web overlay: the live table (plan and camera), tools, resolution, log and set-up.
// Plain JavaScript, no build step, nothing fetched from outside this server.
"use strict";
(() => {
  const SVGNS = "http://www.w3.org/2000/svg";
  const $ = (sel) => document.querySelector(sel);
  const $$ = (sel) => Array.from(document.querySelectorAll(sel));
  const S = {
    lang: localStorage.getItem("tt_lang") || document.documentElement.dataset.defaultLang || "fr",
    server: {}, game: null, live: null, grid: null, gridVersion: -1,
    actions: [], questions: [], terrainKinds: [],
    tool: null, picks: [], highlight: new Set(), outOfCohesion: new Set(), timings: {}, actionForms: {},
    layers: { tool: [], firezone: [], numbers: [], range: [], template: [], auras: [], objectives: [], deployment: [],
              preview: [], aim: [] },
    drawing: null, placing: null, resolution: null, lastRoll: null, tickets: {},
    latencyMs: null, imagesBusy: { plan: false, camera: false }, imageSeq: { plan: -1, camera: -1 }, imageKey: {}, imageAskedAt: {},
  };
  window.TT = S; // for the end-to-end tests and the curious

  // -- words -------------------------------------------------------------------------------
  function t(key, vars) {
    const dict = window.TT_I18N[S.lang] || window.TT_I18N.fr;
    let s = dict[key] !== undefined ? dict[key] : (window.TT_I18N.en[key] !== undefined ? window.TT_I18N.en[key] : key);
    if (vars) s = s.replace(/\{(\w+)\}/g, (_, k) => (vars[k] === undefined || vars[k] === null ? "" : fmtValue(vars[k])));
    return s;
  }
  // a message the server worded from its catalogues (texts.fr, texts.en) in the page's language; else the English
  function worded(m, english) { return (m && m.texts && (m.texts[S.lang] || m.texts.en)) || english; }
  // The rules core speaks English: its rule names and its needed/odds labels ("to hit (rifle)",
  // "attack on b1", "b2 killed") are shown in the page's language. A label translates as a whole
  // when known; else its "(...)" tail and its head separately; else a known leading or trailing
  // word, keeping the rest (weapon, model id) as written. Unknown words stay as they are.
  function ruleWord(label) {
    const text = String(label);
    const known = (w) => window.TT_I18N.en[`rule.${w}`] !== undefined;
    if (known(text)) return t(`rule.${text}`);
    const paren = text.match(/^(.*\S)\s+(\([^()]*\))$/);
    if (paren) return `${ruleWord(paren[1])} ${known(paren[2]) ? t(`rule.${paren[2]}`) : paren[2]}`;
    const words = text.split(" ");
    for (let i = words.length - 1; i > 0; i -= 1) {
      const head = words.slice(0, i).join(" "), bare = head.replace(/:$/, "");
      if (known(bare)) return `${t(`rule.${bare}`)}${head.slice(bare.length)} ${words.slice(i).join(" ")}`;
    }
    for (let i = 1; i < words.length; i += 1) {
      const tail = words.slice(i).join(" ");
      if (known(tail)) return `${words.slice(0, i).join(" ")} ${t(`rule.${tail}`)}`;
    }
    return text;
  }
  // the rules name the bands in English ("in range, beyond 9\""): shown in the page's language
  function bandText(b) {
    return String(b).split(", ").map((part) => (t(`band.${part}`) === `band.${part}` ? part : t(`band.${part}`))).join(", ");
  }
  function fmtValue(v) {
    if (Array.isArray(v)) return v.map(fmtValue).join(", ");
    if (v && typeof v === "object") return v.name || v.model || v.id || "";
    if (typeof v === "number") return fmtNum(v);
    if (typeof v === "boolean") return t(v ? "yes" : "no");
    return String(v);
  }
  // numbers in the page's language (decimal comma in French)
  const numFormats = {};
  function fmtNum(v, digits) {
    const key = `${S.lang}-${digits === undefined ? "a" : digits}`;
    if (!numFormats[key]) {
      numFormats[key] = new Intl.NumberFormat(S.lang === "fr" ? "fr-FR" : "en-GB", digits === undefined
        ? { maximumFractionDigits: 2 } : { minimumFractionDigits: digits, maximumFractionDigits: digits });
    }
    return numFormats[key].format(v);
  }
  const pct = (p, digits) => `${fmtNum(100 * p, digits === undefined ? 1 : digits)} %`;
  // a step citing one of the program's rule choices links to its docs entry (docLink): the words go
  const cleanSource = (s) => String(s || "")
    .replace(/[:,]?\s*rule choice \d+[:,]?/g, "").replace(/\(\s*\)/g, "").replace(/\(\s+/g, "(").replace(/\s+/g, " ").trim();
  // a step's source in the page's language: the rule sets' section names are French already; the few
  // English words the core adds (geometry, a table's name, who gains a bonus) come from the dictionaries
  let sourceWords = null;
  function sourceText(src) {
    if (!sourceWords) {
      sourceWords = Object.keys(window.TT_I18N.en).filter((k) => k.startsWith("source."))
        .sort((a, b) => window.TT_I18N.en[b].length - window.TT_I18N.en[a].length);
    }
    let out = cleanSource(src);
    for (const k of sourceWords) out = out.split(window.TT_I18N.en[k]).join(t(k));
    return out;
  }
  function applyLang() {
    document.documentElement.lang = S.lang;
    $$("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
    $$("[data-i18n-placeholder]").forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
    renderLegend();
    if (S.game) { fillSelects(); renderForm(); }
    if (S.resolution) showResolution(S.resolution);
    if (S.applied) showApplied(S.applied);
    if (S.proposal) showProposal(S.proposal);
    if (S.game && S.lastPair) {  // the measurement or sight shown, said again in the new language
      const [tool, a, b] = S.lastPair;
      if (modelById(a) && modelById(b)) (tool === "measure" ? measure(a, b) : lineOfSight(a, b)).catch(showError);
    }
    $$(".lang-switch button").forEach((b) => b.classList.toggle("on", b.dataset.lang === S.lang));
    setStatus();
    renderLog(S.logEvents || []);
    renderAll();
  }

  // -- server ------------------------------------------------------------------------------
  async function api(method, path, body) {
    const opts = { method, headers: {}, credentials: "same-origin" };
    if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
    const res = await fetch(path, opts);
    let data = null;
    try { data = await res.json(); } catch (e) { data = null; }
    if (!res.ok) {
      const e = (data && data.error) || {};
      const err = new Error(e[`message_${S.lang}`] || e.message || `HTTP ${res.status}`);
      err.code = e.code || `http_${res.status}`; err.params = e.params || {}; err.body = e; err.status = res.status; err.text = e.text;
      throw err;
    }
    return data;
  }
  // An error is shown in the page's language when the server gave its id (code) and parameters;
  // else the server's own sentence.
  function errorText(err) {
    if (err.text && (err.text[S.lang] || err.text.en)) return err.text[S.lang] || err.text.en;  // the rules core's, from its catalogues
    const key = `err.${err.code}`;
    const known = window.TT_I18N.en[key] !== undefined;
    const params = { ...(err.params || {}) };
    if (params.ruleset) params.ruleset = rulesetName(params.ruleset);
    if (params.kinds) params.kinds = params.kinds.map(kindName);
    if (params.shapes) params.shapes = params.shapes.map((x) => t(`shape.${x}`));
    if (params.terrain && S.game) params.terrain = terrainName(params.terrain);
    return known ? t(key, params) : (err.message || String(err));
  }
  // Errors appear next to the control that caused them, and go when the next action starts.
  function clearErrors() { $$(".error.near").forEach((e) => e.remove()); $("#error").hidden = true; }
  function showError(err, anchor) {
    const text = `${t("error")}${t("sep")}${errorText(err)}`;
    const host = anchor && anchor.closest ? (anchor.closest("fieldset, .row, label, .tab") || anchor) : null;
    if (host && host.isConnected) {
      const p = document.createElement("p");
      p.className = "error near"; p.setAttribute("role", "alert"); p.textContent = text;
      if (host.tagName === "FIELDSET" || host.classList.contains("tab")) host.appendChild(p); else host.after(p);
      p.scrollIntoView({ block: "nearest" });
      return;
    }
    const el = $("#error");
    el.textContent = text;
    el.hidden = false;
  }
  // guard(fn): run a player's action: clear the old errors, show a new one next to the control
  const guard = (fn) => (...args) => {
    clearErrors();
    const ev = args[0];
    let anchor = ev && ev.currentTarget instanceof Element ? ev.currentTarget : null;
    if (anchor instanceof SVGElement) anchor = $("#tool-hint");  // a tap on the plan: said under the tools
    return Promise.resolve().then(() => fn(...args)).catch((err) => showError(err, anchor));
  };

  // -- geometry helpers ----------------------------------------------------------------------
  const table = () => (S.game ? S.game.game.table : { width_mm: 1200, depth_mm: 1200 });
  const unitFmt = (mm) => {
    const u = S.game ? S.game.unit : { symbol: "mm", mm: 1 };
    const v = fmtNum(mm / u.mm, 2);
    return u.symbol === '"' ? `${v}"` : `${v} ${u.symbol}`;
  };
  function circlePts(c, r, n = 40) {
    const out = [];
    for (let i = 0; i < n; i++) { const a = (2 * Math.PI * i) / n; out.push([c[0] + r * Math.cos(a), c[1] + r * Math.sin(a)]); }
    return out;
  }
  function projectCamera(p) {
    const g = S.grid;
    const n = g.steps, [w, d] = g.table_mm;
    let gx = (p[0] / w) * n, gy = (p[1] / d) * n;
    const i = Math.min(n - 1, Math.max(0, Math.floor(gx))), j = Math.min(n - 1, Math.max(0, Math.floor(gy)));
    const fx = gx - i, fy = gy - j, at = (ii, jj) => g.points_px[jj * (n + 1) + ii];
    const a = at(i, j), b = at(i + 1, j), c = at(i, j + 1), e = at(i + 1, j + 1);
    return [
      (1 - fx) * (1 - fy) * a[0] + fx * (1 - fy) * b[0] + (1 - fx) * fy * c[0] + fx * fy * e[0],
      (1 - fx) * (1 - fy) * a[1] + fx * (1 - fy) * b[1] + (1 - fx) * fy * c[1] + fx * fy * e[1],
    ];
  }
  const projectPlan = (p) => p;

  // -- the game's models as drawn ------------------------------------------------------------------
  function modelsDrawn() {
    if (!S.game) return [];
    const g = S.game.game, units = {}, live = {}, bases = {};
    (g.units || []).forEach((u) => { units[u.id] = u; });
    ((S.live && S.live.models) || []).forEach((m) => { live[m.marker_id] = m; });
    ((S.live && S.live.bases) || []).forEach((b) => { bases[b.base_id] = b; });
    const tracked = S.server.live;
    return (g.models || []).map((m) => {
      const u = units[m.unit] || {};
      // with a camera, a model is "seen" only when its marker (or bare base) is seen in this frame
      let seen = true;
      const baseId = m.extra && m.extra.base_track;
      if (tracked) {
        if (m.marker_id !== undefined && m.marker_id !== null) seen = live[m.marker_id] ? live[m.marker_id].seen : false;
        else if (baseId) seen = bases[baseId] ? bases[baseId].seen : false;
        else seen = false;
      }
      // a seen model is drawn where the camera sees it now (the game records the move once it settles)
      const now = tracked && seen && live[m.marker_id] ? live[m.marker_id] : null;
      const at = now ? { x_mm: now.x_mm, y_mm: now.y_mm, facing_deg: now.facing_deg } : {};
      // a roster figure not placed yet ("off-table") has no place to draw until the camera sees it
      const waiting = (m.status || []).includes("off-table") && !now;
      return { ...m, ...at, side: u.side, colour: S.game.sides[u.side] || "#777", seen, leader: u.leader === m.id,
               label: m.name || m.id, waiting };
    }).filter((m) => !m.waiting);
  }
  // markers of models removed by a resolution: known as removed, never offered for assignment
  function removedMarkers() {
    const out = {};
    ((S.game && S.game.removed) || []).forEach((r) => { if (r.marker_id !== undefined && r.marker_id !== null) out[r.marker_id] = r; });
    return out;
  }
  function unassigned() {
    if (!S.live || !S.game) return { markers: [], bases: [], removed: [] };
    const gone = removedMarkers();
    const ids = new Set((S.game.game.models || []).map((m) => m.marker_id));
    Object.keys(gone).forEach((k) => ids.add(Number(k)));
    const baseIds = new Set((S.game.game.models || []).map((m) => m.extra && m.extra.base_track).filter(Boolean));
    return { markers: (S.live.models || []).filter((m) => !ids.has(m.marker_id)),
             bases: (S.live.bases || []).filter((b) => !baseIds.has(b.base_id)),
             removed: (S.live.models || []).filter((m) => gone[m.marker_id] && m.seen).map((m) => ({ ...m, who: gone[m.marker_id] })) };
  }

  // -- drawing -------------------------------------------------------------------------------
  function el(tag, attrs, parent) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) e.setAttribute(k, v);
    if (parent) parent.appendChild(e);
    return e;
  }
  const ptsAttr = (pts, proj) => pts.map((p) => proj(p).map((v) => v.toFixed(1)).join(",")).join(" ");

  function drawShape(s, proj, g, fs) {
    if (s.kind === "poly") return el("polygon", { points: ptsAttr(s.pts, proj), class: s.cls, "data-id": s.id }, g);
    if (s.kind === "line") return el("polyline", { points: ptsAttr(s.pts, proj), class: s.cls, "data-id": s.id }, g);
    if (s.kind === "circle") return el("polygon", { points: ptsAttr(circlePts(s.c, s.r, 72), proj), class: s.cls }, g);
    if (s.kind === "text") {
      const p = proj(s.at);
      const e = el("text", { x: p[0].toFixed(1), y: p[1].toFixed(1), class: s.cls, "font-size": (fs * (s.size || 1)).toFixed(1) }, g);
      e.textContent = s.text;
      return e;
    }
    return null;
  }

  function sceneShapes() {
    const out = [];
    const g = S.game ? S.game.game : null;
    if (!g) return out;
    (g.terrain || []).forEach((tr) => {
      const cls = `terrain terrain-${tr.shape}${S.highlight.has(tr.id) ? " blocking" : ""}`;
      out.push({ kind: tr.shape === "area" ? "poly" : "line", pts: tr.points_mm, cls, id: tr.id });
      const c = tr.points_mm.reduce((a, p) => [a[0] + p[0] / tr.points_mm.length, a[1] + p[1] / tr.points_mm.length], [0, 0]);
      out.push({ kind: "text", at: c, text: tr.name || kindName(tr.kind), cls: "terrain-label", size: 0.8 });
    });
    const L = S.layers;
    if ($("#show-deployment").checked) out.push(...L.deployment);
    out.push(...L.range, ...L.template);
    if ($("#show-auras").checked) out.push(...L.auras);
    if ($("#show-objectives").checked) out.push(...L.objectives);
    out.push(...L.firezone, ...L.preview.filter((sh) => !sh.hidden), ...L.aim);
    return out;
  }

  function drawView(svg, proj, fs, width, height) {
    const keepImage = svg.querySelector("image");
    svg.replaceChildren();
    if (keepImage) svg.appendChild(keepImage);
    const tb = table();
    const corners = [[0, 0], [tb.width_mm, 0], [tb.width_mm, tb.depth_mm], [0, tb.depth_mm]];
    const g = el("g", { class: "overlay" }, svg);
    // the table's edge, and nothing drawn beyond it (range rings, templates...)
    const defs = el("defs", {}, g);
    const clip = el("clipPath", { id: `${svg.id}-table` }, defs);
    const edge = [];
    corners.forEach((c, i) => {  // the edges, sampled: straight on the plan, curved by the lens on the camera
      const n = corners[(i + 1) % 4];
      for (let k = 0; k < 8; k++) edge.push([c[0] + ((n[0] - c[0]) * k) / 8, c[1] + ((n[1] - c[1]) * k) / 8]);
    });
    el("polygon", { points: ptsAttr(edge, proj) }, clip);
    g.setAttribute("clip-path", `url(#${svg.id}-table)`);
    drawShape({ kind: "poly", pts: edge, cls: "table-edge" }, proj, g, fs);
    sceneShapes().forEach((s) => drawShape(s, proj, g, fs));
    // last move: from -> to with its length
    const mv = S.game && S.game.last_move;
    if (mv && mv.from_mm && mv.to_mm) {
      drawShape({ kind: "line", pts: [mv.from_mm, mv.to_mm], cls: "last-move" }, proj, g, fs);
      drawShape({ kind: "circle", c: mv.from_mm, r: 4, cls: "last-move-start" }, proj, g, fs);
      const mid = [(mv.from_mm[0] + mv.to_mm[0]) / 2, (mv.from_mm[1] + mv.to_mm[1]) / 2];
      drawShape({ kind: "text", at: mid, text: unitFmt(mv.distance_mm), cls: "move-label" }, proj, g, fs);
    }
    const um = unassigned();
    um.markers.forEach((m) => {
      drawShape({ kind: "circle", c: [m.x_mm, m.y_mm], r: (m.base_mm || 25) / 2, cls: `unassigned${m.seen ? "" : " unseen"}` }, proj, g, fs);
      drawShape({ kind: "text", at: [m.x_mm, m.y_mm], text: `#${m.marker_id}`, cls: "model-label", size: 0.8 }, proj, g, fs);
    });
    um.removed.forEach((m) => {
      const r = (m.base_mm || 25) / 2, c = [m.x_mm, m.y_mm];
      drawShape({ kind: "circle", c, r, cls: "removed-marker" }, proj, g, fs);
      drawShape({ kind: "line", pts: [[c[0] - r, c[1] - r], [c[0] + r, c[1] + r]], cls: "removed-cross" }, proj, g, fs);
      drawShape({ kind: "line", pts: [[c[0] - r, c[1] + r], [c[0] + r, c[1] - r]], cls: "removed-cross" }, proj, g, fs);
      drawShape({ kind: "text", at: [c[0], c[1] - r - 4], text: `${m.who.name} ✝`, cls: "removed-label", size: 0.7 }, proj, g, fs);
    });
    um.bases.forEach((b) => {
      drawShape({ kind: "circle", c: [b.x_mm, b.y_mm], r: b.diameter_mm / 2, cls: `unassigned${b.seen ? "" : " unseen"}` }, proj, g, fs);
      drawShape({ kind: "text", at: [b.x_mm, b.y_mm], text: b.base_id, cls: "model-label", size: 0.7 }, proj, g, fs);
    });
    // terrain names are drawn first: a model label does not cover them
    const labelBoxes = sceneShapes().filter((x) => x.cls === "terrain-label").map((x) => {
      const at = proj(x.at), half = String(x.text).length * fs * 0.8 * 0.27;
      return [at[0] - half, at[1] - fs * 0.4, at[0] + half, at[1] + fs * 0.4];
    });
    modelsDrawn().forEach((m) => {
      const cls = ["model", m.seen ? "seen" : "unseen", S.outOfCohesion.has(m.id) ? "out-of-cohesion" : "",
                   S.picks.includes(m.id) ? "picked" : "", S.highlight.has(m.id) ? "blocking" : "",
                   m.leader ? "leader" : ""].join(" ");
      const poly = el("polygon", { points: ptsAttr(circlePts([m.x_mm, m.y_mm], m.base_mm / 2), proj), class: cls,
                                  fill: m.colour, stroke: m.colour, "data-model": m.id }, g);
      const title = el("title", {}, poly);
      title.textContent = `${m.label} (${m.unit})${m.marker_id ? ` #${m.marker_id}` : ""}${m.seen ? "" : ` - ${t("unseen")}`}` +
        (S.outOfCohesion.has(m.id) ? ` - ${t("out_of_cohesion")}` : "");
      if (m.facing_deg !== undefined && m.facing_deg !== null) {
        const a = (m.facing_deg * Math.PI) / 180, r = m.base_mm / 2;
        drawShape({ kind: "line", pts: [[m.x_mm, m.y_mm], [m.x_mm + r * Math.cos(a), m.y_mm + r * Math.sin(a)]], cls: "facing" }, proj, g, fs);
      }
      if (S.outOfCohesion.has(m.id)) drawShape({ kind: "circle", c: [m.x_mm, m.y_mm], r: m.base_mm / 2 + 5, cls: "cohesion-ring" }, proj, g, fs);
      if (m.elevation_mm) {  // standing on a floor or a hill: its height beside the base
        const at = [m.x_mm + m.base_mm / 2 + fs * 0.3, m.y_mm];  // starts right of the base (text-anchor: start)
        const e = drawShape({ kind: "text", at, text: `↑${unitFmt(m.elevation_mm)}`, cls: "elevation-label", size: 0.75 }, proj, g, fs);
        e.dataset.elevation = m.id;
      }
      // a label is drawn only where it does not cover another one (dense units on a phone)
      // above the base, else below it; left out only when both would cover another label
      const text = m.label + (m.seen ? "" : " ?");
      for (const dy of [-(m.base_mm / 2 + fs * 0.45), m.base_mm / 2 + fs * 0.45]) {
        const where = [m.x_mm, m.y_mm + dy], at = proj(where);
        const box = [at[0] - text.length * fs * 0.27, at[1] - fs * 0.45, at[0] + text.length * fs * 0.27, at[1] + fs * 0.45];
        if (!labelBoxes.some((b) => box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3])) {
          labelBoxes.push(box);
          drawShape({ kind: "text", at: where, text, cls: "model-label", size: 0.8 }, proj, g, fs);
          break;
        }
      }
    });
    S.layers.tool.forEach((s) => drawShape(s, proj, g, fs));
    S.layers.numbers.forEach((s) => drawShape(s, proj, g, fs));
    if (S.drawing && S.drawing.length) {
      drawShape({ kind: "line", pts: S.drawing, cls: "drawing" }, proj, g, fs);
      S.drawing.forEach((p) => drawShape({ kind: "circle", c: p, r: 4, cls: "drawing-point" }, proj, g, fs));
    }
  }

  function renderAll() {
    if (!S.game) return;
    const tb = table();
    const plan = $("#plan-svg");
    plan.setAttribute("viewBox", `0 0 ${tb.width_mm} ${tb.depth_mm}`);
    ensureImage(plan, "plan", tb.width_mm, tb.depth_mm);
    drawView(plan, projectPlan, LABEL_PX * viewUnitsPerPx(plan, tb.width_mm, tb.depth_mm));
    const cam = $("#camera-svg");
    if (S.grid) {
      const [w, h] = S.grid.image_px;
      cam.setAttribute("viewBox", `0 0 ${w} ${h}`);
      ensureImage(cam, "camera", w, h);
      drawView(cam, projectCamera, Math.max(LABEL_PX * viewUnitsPerPx(cam, w, h), Math.max(w, h) / 60));
    } else if (S.live && S.live.image_px) {
      // not calibrated yet: the camera image alone, so the players can see what the camera sees
      const [w, h] = S.live.image_px;
      cam.setAttribute("viewBox", `0 0 ${w} ${h}`);
      ensureImage(cam, "camera", w, h);
      cam.querySelectorAll("g.overlay").forEach((g) => g.remove());
    }
    $$(".unit-symbol").forEach((e) => { e.textContent = S.game.unit.symbol; });
  }

  // labels readable at arm's length: about 15 px on screen whatever the table's size
  const LABEL_PX = 15;
  function viewUnitsPerPx(svg, w, h) {
    const r = svg.getBoundingClientRect();
    if (!r.width || !r.height) return Math.max(w, h) / 600;
    return Math.max(w / r.width, h / r.height);
  }
  function ensureImage(svg, view, w, h) {
    let img = svg.querySelector("image");
    if (!img) {
      img = el("image", { x: 0, y: 0, width: w, height: h, preserveAspectRatio: "none", class: `frame frame-${view}` });
      svg.insertBefore(img, svg.firstChild);
    }
    img.setAttribute("width", w);
    img.setAttribute("height", h);
  }

  // The overlay follows every frame; each picture is fetched when the previous one has
  // arrived, at most every MIN_IMAGE_INTERVAL_MS, so a fast camera does not flood a phone.
  const MIN_IMAGE_INTERVAL_MS = 80;
  function refreshImage(view) {
    if (!S.live || S.imagesBusy[view] || S.imageKey[view] === `${S.live.run}/${S.live.seq}`) return;
    if (view === "plan" && !S.live.has_plan_image) return;
    const now = Date.now();
    if (now - (S.imageAskedAt[view] || 0) < MIN_IMAGE_INTERVAL_MS) return;
    S.imageAskedAt[view] = now;
    const seq = S.live.seq, key = `${S.live.run}/${S.live.seq}`;
    S.imagesBusy[view] = true;
    const loader = new Image();
    loader.onload = () => {
      S.imagesBusy[view] = false;
      S.imageSeq[view] = seq; S.imageKey[view] = key;
      const img = document.querySelector(`#${view}-svg image`);
      if (img) img.setAttribute("href", loader.src);
      S.shownSeq = seq;
      S.shownLatencyMs = Date.now() - S.live.captured_s * 1000;
    };
    loader.onerror = () => { S.imagesBusy[view] = false; };
    loader.src = `api/frame/${view}.jpg?run=${encodeURIComponent(S.live.run || "")}&seq=${seq}`;
  }

  // -- live updates ----------------------------------------------------------------------------
  // live (frames arriving), paused (none for PAUSED_AFTER_MS), source ended, disconnected
  const PAUSED_AFTER_MS = 3000;
  function pillState() {
    if (S.offline) return "offline";
    if (S.server.live === false) return "no_source";
    if (!S.live || !S.live.status) return "starting";
    if (S.live.status === "source_ended") return "source_ended";
    if (S.lastLiveAt && Date.now() - S.lastLiveAt > PAUSED_AFTER_MS) return "paused";
    return S.live.status;
  }
  function setStatus() {
    const st = $("#status");
    const state = pillState();
    st.dataset.status = state;
    st.textContent = t(`status.${state}`);
    if (S.latencyMs !== null && state === "ok") {  // the latency only while frames arrive (hidden on a phone)
      const lat = document.createElement("span");
      lat.className = "latency";
      lat.textContent = ` · ${fmtNum(Math.round(S.latencyMs))} ms`;
      st.appendChild(lat);
    }
    $("#status-detail").textContent = st.title = statusDetail();
    $("#status-detail").title = st.title;
    if (!st.title) st.title = S.server.source || "";
  }
  // the live feed's detail in the page's language: the server words every status from its catalogues
  // (texts.fr, texts.en); its English sentence only for a status it could not word
  function statusDetail() {
    const live = S.live;
    if (S.offline || !live || ["ok", "source_ended"].includes(live.status)) return "";
    return worded(live, live.message || "");
  }

  function connect() {
    const es = new EventSource("api/stream");
    es.addEventListener("game", (ev) => { S.offline = false; onGame(JSON.parse(ev.data)); });
    es.addEventListener("live", (ev) => {
      S.offline = false;
      const live = JSON.parse(ev.data);
      S.live = live;
      S.lastLiveAt = Date.now();
      S.latencyMs = live.captured_s ? Date.now() - live.captured_s * 1000 : null;
      S.liveReceived = (S.liveReceived || 0) + 1;
      if (live.calibration_version !== S.gridVersion) loadGrid(live.calibration_version);
      refreshImage("plan"); refreshImage("camera");
      setStatus();
      renderAll();
      renderDetected();
    });
    // a log entry that changes no game (a marker the camera cannot follow): added as it comes
    es.addEventListener("log", (ev) => {
      const entry = JSON.parse(ev.data);
      if (!S.logEvents) S.logEvents = [];
      if (S.logEvents.some((e) => e.id === entry.id)) return;
      S.logEvents.push(entry);
      renderLog(S.logEvents);
    });
    es.onerror = () => { S.offline = true; S.latencyMs = null; setStatus(); };
    es.onopen = () => { S.offline = false; setStatus(); };
    setInterval(setStatus, 1000);  // "paused" when frames stop coming
  }
  async function loadGrid(version) {
    S.gridVersion = version;
    try { S.grid = await api("GET", "api/projection"); renderAll(); } catch (e) { S.grid = null; }
  }

  function onGame(view) {
    const before = S.game;
    // the live feed first repeats the game the page already drew: nothing to redo
    if (before && before.event_id === view.event_id && before.game_id === view.game_id &&
        JSON.stringify(before) === JSON.stringify(view)) return;
    // a state asked for before a later change reached the page (the live feed is another connection):
    // older than the game drawn, it never replaces it
    if (before && before.game_id === view.game_id && view.event_id < before.event_id) return;
    S.game = view;
    setStatus();
    $("#views").classList.toggle("no-camera", S.server.live === false);
    $("#camera-toggle").hidden = S.server.live === false;
    $("#game-name").textContent = view.game.name || "";
    if (!before) {  // the first drawing: the plan is painted first, the menus and forms right after
      renderAll();
      requestAnimationFrame(() => setTimeout(() => { if (S.game === view) finishGame(view, null); }, 0));
      return;
    }
    finishGame(view, before);
  }
  function finishGame(view, before) {
    fillSelects(before);
    renderForm();
    renderLegend();
    renderAll();
    if (before && before.game.ruleset !== view.game.ruleset) {
      // another rule set: other actions, questions and terrain kinds; a shot being shown is dropped
      ticket("preview"); S.rulesetPending = true;
      api("GET", "api/state").then((st) => {
        S.rulesetPending = false;
        S.actions = st.actions; S.questions = st.questions; S.terrainKinds = st.terrain_kinds;
        S.actionForms = st.action_forms || {};
        fillSelects(); renderForm(); refreshDerived().catch(showError);
      }).catch(showError);
    } else {
      refreshDerived().catch(showError);  // (another rule set: once its questions are known, above)
    }
    loadLog().catch(showError);
  }

  async function refreshDerived() {
    refreshCohesion();
    if (S.lastPair) {  // a measurement or sight line follows the models when they move
      const [tool, a, b] = S.lastPair;
      if (modelById(a) && modelById(b)) await (tool === "measure" ? measure(a, b) : lineOfSight(a, b));
      else { S.lastPair = null; S.layers.tool = []; }
    }
    if (S.lastTemplate && S.layers.template.length) await template(S.lastTemplate, true);
    if (S.layers.range.length && modelById($("#rg-model").value)) await rangeBands(true);
    if ($("#fz-firing").value && $("#fz-target").value && has("firezone")) await fireZone();
    else if (!has("firezone")) { S.layers.firezone = []; S.layers.numbers = []; }
    if (S.previewKey) {  // the shot shown follows the game: the old verdicts go at once
      S.previewKey = null; S.preview = null; S.layers.preview = []; S.layers.aim = []; $("#rs-preview").replaceChildren();
      await previewShot();
    }
    if ($("#show-objectives").checked) await objectives();
    if ($("#show-auras").checked) await auras();
    if ($("#show-deployment").checked) await deployment();
    renderAll();
  }

  // -- questions -------------------------------------------------------------------------------
  // Answers come back in any order: each request of a kind takes a ticket, and its answer is used only
  // while no newer request of that kind was made (an older answer never replaces a newer one).
  function ticket(kind) {
    const n = (S.tickets[kind] = (S.tickets[kind] || 0) + 1);
    return () => S.tickets[kind] === n;
  }
  const ask = (question, args, options) => api("POST", "api/ask", { question, args: args || [], options: options || {} });
  const has = (q) => S.questions.length === 0 || S.questions.includes(q);

  function explanationHtml(answer) {
    const seen = new Set();
    const steps = ((answer && answer.explanation) || []).filter((s) => {
      const key = `${s.rule}|${stepText(s)}`;
      if (seen.has(key)) return false;
      seen.add(key); return true;
    });
    if (!steps.length) return "";
    return `<details class="explain"><summary>${t("explanation")} (${steps.length})</summary><ul class="explanation">${steps.map((s) =>
      `<li><b>${esc(ruleWord(s.rule))}</b> ${esc(cleanSource(stepText(s)))} <cite>${esc(sourceText(s.source))}</cite>${docLink(s.doc)}</li>`).join("")}</ul></details>`;
  }
  // a step in the page's language: the rules core's message rendered from its catalogues, else its English sentence
  function stepText(s) { return worded(s, s.text); }
  // a cited rule choice: a link to its entry in the project's docs (served by /docs/<page>)
  function docLink(doc) {
    const m = /^([a-z0-9-]+)\.md#([a-z0-9-]+?)-(\d+)$/.exec(doc || "");
    return m ? ` <a class="doc-link" target="_blank" rel="noopener" href="docs/${m[1]}#${m[2]}-${m[3]}">${esc(t("rule_choice_n", { n: m[3] }))}</a>` : "";
  }
  function esc(s) { return String(s === undefined || s === null ? "" : s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c])); }
  function showAnswer(html, answer) {
    const opened = $("#answer details.explain[open]") !== null;  // a player reading the rules keeps them open
    $("#answer").innerHTML = html + explanationHtml(answer);
    if (opened && $("#answer details.explain")) $("#answer details.explain").open = true;
  }
  const num = (v) => (typeof v === "number" ? v : (v && typeof v === "object" && typeof v.mm === "number" ? v.mm : null));
  const modelById = (id) => (S.game.game.models || []).find((m) => m.id === id);
  const centre = (id) => { const m = modelById(id); return m ? [m.x_mm, m.y_mm] : null; };

  function refreshCohesion() {
    // computed by the server once per change of the game, for every watcher at once
    S.outOfCohesion = new Set(Object.values(S.game.cohesion || {}).flat());
  }

  const nameOf = (id) => { const m = modelById(id); return m ? (m.name || m.id) : id; };
  const terrainName = (id) => { const x = (S.game.game.terrain || []).find((tr) => tr.id === id); return x ? (x.name || x.id) : nameOf(id); };

  // the distance the rule set measures first (edge to edge, or centre to centre), the other after
  async function measure(a, b) {
    const t0 = performance.now();
    const current = ticket("answer");
    const ans = await ask("distance", [a, b]);
    if (!current()) return;  // a later measurement or sight line asked, or a model tapped, since: it is shown
    const c = num(ans.centre_to_centre), e = num(ans.edge_to_edge);
    const pa = centre(a), pb = centre(b);
    const mid = [(pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2];
    const parts = [e !== null ? ["edge", e] : null, c !== null ? ["centre", c] : null].filter(Boolean);
    if (ans.how === "centre") parts.reverse();
    const text = parts.map(([k, v]) => `${unitFmt(v)} ${t(k)}`).join(" · ");
    S.layers.tool = [{ kind: "line", pts: [pa, pb], cls: "measure" }, { kind: "text", at: mid, text: parts.length ? unitFmt(parts[0][1]) : "", cls: "measure-label", size: 1 }];
    showAnswer(`<p class="big" id="measure-result">${esc(nameOf(a))} → ${esc(nameOf(b))}${t("sep")}${esc(text)}</p>`, ans);
    S.timings.measure = performance.now() - t0;
  }

  // one vocabulary: visible / partly hidden X % / blocked by Y (and the cover it gives)
  function sightVerdict(ans) {
    const visible = ans.visible !== undefined ? ans.visible : (ans.clear !== undefined ? ans.clear : ans.los);
    const blockers = [].concat(ans.blockers || []).map((x) => (typeof x === "string" ? x : x.id)).filter(Boolean);
    const cover = [].concat(ans.cover || []).map((x) => (typeof x === "string" ? x : x.id)).filter(Boolean);
    const hidden = ans.visible_fraction !== undefined ? 1 - ans.visible_fraction : 0;
    let key, params = {};
    if (!visible) { key = blockers.length ? "sight.blocked_by" : "sight.blocked"; params = { what: blockers.map(terrainName).join(", ") }; }
    else if (hidden > 0.005) { key = "sight.partly_hidden"; params = { pct: pct(hidden, 0) }; }
    else key = "sight.visible";
    let text = t(key, params);
    if (visible && cover.length) text += ` · ${t("sight.cover", { what: cover.map(terrainName).join(", ") })}`;
    return { visible, blockers, cover, text, key };
  }
  async function lineOfSight(a, b) {
    const t0 = performance.now();
    const current = ticket("answer");
    const ans = await ask("los", [a, b]);
    if (!current()) return;  // a later measurement or sight line asked, or a model tapped, since: it is shown
    const v = sightVerdict(ans);
    S.highlight = new Set(v.blockers);
    S.layers.tool = [{ kind: "line", pts: [centre(a), centre(b)], cls: v.visible ? (v.key === "sight.visible" ? "los-clear" : "los-partial") : "los-blocked" }];
    showAnswer(`<p class="big" id="los-result" data-verdict="${v.key}">${esc(nameOf(a))} → ${esc(nameOf(b))}${t("sep")}${esc(v.text)}</p>`, ans);
    S.timings.los = performance.now() - t0;
  }

  function firstPolygon(obj) {
    if (!obj || typeof obj !== "object") return null;
    for (const key of ["zone_mm", "polygon_mm", "zone", "polygon", "points_mm"]) {
      const v = obj[key];
      if (Array.isArray(v) && v.length >= 3 && Array.isArray(v[0])) return v;
      if (v && Array.isArray(v.points_mm)) return v.points_mm;
    }
    return null;
  }

  async function fireZone() {
    const f = $("#fz-firing").value, tg = $("#fz-target").value;
    const current = ticket("firezone");  // (taken before the clearing: an older zone never comes back)
    S.layers.firezone = []; S.layers.numbers = [];
    if (!f || !tg || f === tg) { renderAll(); return; }
    const ans = await ask("firezone", [f, tg]);
    if (!current()) return;  // other units chosen since: their zone is drawn
    const poly = firstPolygon(ans);
    const shapes = [];
    if (poly) shapes.push({ kind: "poly", pts: poly, cls: "firezone" });
    const order = ans.impact_order || ans.models || ans.in_zone || [];
    order.forEach((x, i) => {
      const id = typeof x === "string" ? x : x.model || x.id;
      const p = centre(id);
      if (p) S.layers.numbers.push({ kind: "text", at: p, text: String(i + 1), cls: "impact-number", size: 0.9 });
    });
    const band = ans.band !== undefined && ans.band !== null
      ? `${typeof ans.band === "number" ? `${t("band")} ${ans.band}` : bandText(ans.band.label || ans.band)}${ans.distance ? ` (${unitFmt(ans.distance.mm)})` : ""}` : null;
    const lf = centre((S.game.game.units.find((u) => u.id === f) || {}).leader), lt = centre((S.game.game.units.find((u) => u.id === tg) || {}).leader);
    if (band !== null && lf && lt) shapes.push({ kind: "text", at: [(lf[0] + lt[0]) / 2, (lf[1] + lt[1]) / 2], text: String(band), cls: "band-label", size: 0.7 });
    S.layers.firezone = shapes;
    showAnswer(`<p class="big" id="firezone-result">${t("in_zone")}${t("sep")}${esc(order.map((x) => (typeof x === "string" ? x : x.model || x.id)).join(", ") || t("nothing"))}</p>` +
      (band !== null ? `<p id="firezone-band">${esc(band)}</p>` : ""), ans);
    renderAll();
  }

  // a weapon's range from the roster, in the rule set's unit: range_in (inches), range_cm, or range (the unit)
  function weaponRange(name) {
    const w = ((S.game.game.weapons || {})[name]) || {};
    const u = S.game.unit;
    for (const [key, mm] of [["range_in", 25.4], ["range_cm", 10], ["range_mm", 1], ["range", u.mm]]) {
      if (typeof w[key] === "number" && w[key] > 0) return (w[key] * mm) / u.mm;
    }
    return null;
  }
  async function rangeBands(quiet) {
    const m = $("#rg-model").value, raw = $("#rg-range").value.trim();
    if (!m) return;
    const body = { model: m };
    if (raw !== "") body.weapon_range = parseFloat(raw.replace(",", "."));
    const current = ticket("range");
    const ans = await api("POST", "api/bands", body);
    if (!current()) return;  // another model or range asked since: its rings are drawn
    const c = ans.centre_mm, shapes = [];
    const model = modelById(m), radius = model ? model.base_mm / 2 : 0;
    // each ring's label says how it is measured: from the base's edge (its radius added) or its centre
    const how = ans.how === "edge" ? t("ring.edge", { r: unitFmt(radius) }) : t("ring.centre");
    // labels on the side of the ring facing the table's middle, where they are not cut by the edge
    const tb = table(), toMid = [tb.width_mm / 2 - c[0], tb.depth_mm / 2 - c[1]];
    const len = Math.hypot(toMid[0], toMid[1]) || 1, dir = [toMid[0] / len, toMid[1] / len];
    ans.bands.forEach((b, i) => {
      const inner = b.from_mm, outer = b.to_mm;
      if (outer !== null) shapes.push({ kind: "circle", c, r: outer, cls: `range-band band-${i % 4}` });
      const at = outer !== null ? outer : inner + 20;
      const where = [c[0] + dir[0] * at, c[1] + dir[1] * at];
      const reach = outer !== null ? ` ${unitFmt(ans.how === "edge" ? outer - radius : outer)}${ans.how === "edge" ? ` ${t("ring.edge_short")}` : ""}` : "";
      shapes.push({ kind: "text", at: where, text: `${bandText(b.band)}${reach}`, cls: "band-label", size: 0.8 });
    });
    S.layers.range = shapes;
    if (quiet !== true) {
      $("#answer").innerHTML = `<p class="big" id="bands-result">${esc(ans.bands.map((b) => `${bandText(b.band)}${b.to_mm !== null ? ` < ${unitFmt(ans.how === "edge" ? b.to_mm - radius : b.to_mm)}` : ""}`).join(" · "))}</p><p class="hint" id="bands-how">${esc(how)}</p>`;
    }
    renderAll();
  }

  async function template(at, quiet) {
    const r = parseFloat($("#tp-radius").value) * S.game.unit.mm;
    if (!(r > 0)) throw new Error(t("label.radius"));
    const current = ticket("template");
    const ans = await ask("template", [at[0].toFixed(1), at[1].toFixed(1), r.toFixed(1)]);
    if (!current()) return;  // a template placed since: it is the one drawn
    const under = (ans.models || ans.under || []).map((x) => (typeof x === "string" ? x : x.model || x.id));
    S.highlight = new Set(under);
    S.layers.template = [{ kind: "circle", c: at, r: ans.radius_mm || r, cls: "template" }];
    if (quiet !== true) showAnswer(`<p class="big">${t("under_template")}${t("sep")}${esc(under.join(", ") || t("nothing"))}</p>`, ans);
  }

  async function auras() {
    const current = ticket("auras"), shapes = [];
    S.layers.auras = shapes;
    if (!has("aura")) return;
    const leaders = (S.game.game.models || []).filter((m) => m.role).map((m) => m.id);
    for (const id of leaders) {
      try {
        const a = await ask("aura", [id]);
        if (!current()) return;  // asked again since (a newer game): that call draws them
        (a.auras || a.bubbles || (a.radius_mm ? [a] : [])).forEach((b) => {
          const r = num(b.radius_mm !== undefined ? b.radius_mm : b.radius);
          if (r) shapes.push({ kind: "circle", c: centre(id), r: r + modelById(id).base_mm / 2, cls: "aura" });
        });
      } catch (e) { /* no aura for this model */ }
    }
  }

  async function objectives() {
    const current = ticket("objectives"), shapes = [];
    S.layers.objectives = shapes;
    (S.game.game.objectives || []).forEach((o) => shapes.push({ kind: "circle", c: [o.x_mm, o.y_mm], r: 10, cls: "objective" }));
    if (!(S.game.game.objectives || []).length || !has("objectives")) return;
    try {
      const a = await ask("objectives", []);
      if (!current()) return;  // asked again since (a newer game): that call draws them
      (a.objectives || []).forEach((o) => {
        const obj = (S.game.game.objectives || []).find((x) => x.id === (o.objective || o.id));
        if (!obj) return;
        const side = o.controller || (o.contested ? "contested" : null);
        const r = num(o.reach_mm !== undefined ? o.reach_mm : a.reach_mm) || 0;
        if (r) shapes.push({ kind: "circle", c: [obj.x_mm, obj.y_mm], r, cls: `objective-zone${side ? "" : " contested"}` });
        shapes.push({ kind: "text", at: [obj.x_mm, obj.y_mm + 25], text: `${obj.id}: ${side || "—"}`, cls: "objective-label", size: 0.8 });
      });
    } catch (e) { /* rule set without objectives */ }
  }

  async function deployment() {
    const current = ticket("deployment"), shapes = [];
    S.layers.deployment = shapes;
    const a = await api("GET", "api/zones");
    if (!current()) return;  // asked again since (a newer game): that call draws them
    a.deployment.forEach((z) => {
      shapes.push({ kind: "poly", pts: z.points_mm, cls: "deployment" });
      const c = z.points_mm.reduce((acc, p) => [acc[0] + p[0] / z.points_mm.length, acc[1] + p[1] / z.points_mm.length], [0, 0]);
      shapes.push({ kind: "text", at: c, text: `${z.side} (${z.depth}${z.unit})`, cls: "deployment-label", size: 0.8 });
    });
  }

  // -- clicks ----------------------------------------------------------------------------------
  function setTool(tool) {
    S.tool = tool; S.picks = []; S.drawing = S.drawing && tool === "draw" ? S.drawing : null;
    $$("[data-tool]").forEach((b) => b.classList.toggle("on", b.dataset.tool === tool));
    const hint = { measure: "hint.measure1", los: "hint.los1", template: "hint.template", draw: "hint.draw", objective: "hint.objective" }[tool] || "hint.pick_tool";
    $("#tool-hint").textContent = t(hint);
    $("#tool-hint").dataset.i18n = hint;
  }
  function planPoint(svg, ev) {
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    return [p.x, p.y];
  }
  // A tap selects the nearest model within half a 44 px target of its base (a finger, not a pixel)
  const TAP_PX = 22;
  function nearestModel(svg, ev) {
    const p = planPoint(svg, ev);
    const mmPerPx = 1 / (svg.getScreenCTM().a || 1);
    let best = null, bestD = Infinity;
    modelsDrawn().forEach((m) => {
      const d = Math.hypot(m.x_mm - p[0], m.y_mm - p[1]) - m.base_mm / 2;
      if (d < bestD) { bestD = d; best = m; }
    });
    return best && bestD <= TAP_PX * mmPerPx ? best.id : null;
  }
  async function onViewClick(ev, isPlan) {
    const target = ev.target.closest("[data-model]");
    const modelId = isPlan ? nearestModel($("#plan-svg"), ev) : (target ? target.dataset.model : null);
    if (modelId && (S.tool === "measure" || S.tool === "los")) {
      S.picks.push(modelId);
      if (S.picks.length === 1) {
        $("#tool-hint").textContent = t(S.tool === "measure" ? "hint.measure2" : "hint.los2");
        renderAll();
        return;
      }
      const [a, b] = S.picks;
      S.picks = [];
      S.highlight = new Set();
      S.lastPair = [S.tool, a, b];
      if (S.tool === "measure") await measure(a, b); else await lineOfSight(a, b);
      $("#tool-hint").textContent = t(S.tool === "measure" ? "hint.measure1" : "hint.los1");
      renderAll();
      return;
    }
    if (modelId && !S.tool) {
      selectModel(modelId);
      return;
    }
    if (!isPlan) return;
    const p = planPoint($("#plan-svg"), ev);
    const tb = table();
    if (p[0] < 0 || p[1] < 0 || p[0] > tb.width_mm || p[1] > tb.depth_mm) return;
    if (S.tool === "template") { S.lastTemplate = p; await template(p); renderAll(); }
    else if (S.tool === "draw") { S.drawing.push([Math.round(p[0]), Math.round(p[1])]); $("#tr-done").disabled = false; renderAll(); }
    else if (S.tool === "objective") { await api("POST", "api/objectives", { x_mm: Math.round(p[0]), y_mm: Math.round(p[1]) }); setTool(null); }
  }

  // -- menus -----------------------------------------------------------------------------------
  function fillSelect(sel, items, keepEmpty) {
    const old = sel.value;
    sel.replaceChildren();
    if (keepEmpty) { const o = document.createElement("option"); o.value = ""; o.textContent = t("none"); sel.appendChild(o); }
    items.forEach(([v, label]) => { const o = document.createElement("option"); o.value = v; o.textContent = label; sel.appendChild(o); });
    if (items.some(([v]) => v === old)) sel.value = old;
  }
  function fillSelects() {
    const g = S.game.game;
    // tools the rule set has no question for are not offered (Firefight has no fire zone...)
    $$("[data-question]").forEach((e) => { e.hidden = S.questions.length > 0 && !S.questions.includes(e.dataset.question); });
    const units = (g.units || []).map((u) => [u.id, `${u.name || u.id} (${u.side})`]);
    ["#fz-firing", "#fz-target"].forEach((s) => fillSelect($(s), units, true));
    fillSelect($("#rg-model"), (g.models || []).map((m) => [m.id, `${m.name || m.id} · ${unitName(m.unit)}`]), true);
    fillWeapons();
    fillSelect($("#rs-action"), S.actions.map((a) => [a, actionName(a)]), false);
    if (!S.actionChosen && S.actions.includes("shoot")) $("#rs-action").value = "shoot";
    const chosenRuleset = $("#su-ruleset").value;
    fillSelect($("#su-ruleset"), (S.server.rulesets || []).map((r) => [r, rulesetName(r)]), false);
    if (chosenRuleset) $("#su-ruleset").value = chosenRuleset;
    // set-up fields follow the game only when the game's values change, never over what a player is typing
    const setup = JSON.stringify([g.ruleset, g.table]);
    if (S.filledSetup !== setup) {
      S.filledSetup = setup;
      $("#su-ruleset").value = g.ruleset;
      $("#su-width").value = g.table.width_mm;
      $("#su-depth").value = g.table.depth_mm;
    }
    fillSelect($("#tr-kind"), S.terrainKinds.map((k) => [k.kind, kindName(k.kind)]), false);
    const list = $("#tr-list");
    list.replaceChildren();
    [...(g.terrain || []).map((x) => ["terrain", x.id, `${x.name || x.id} · ${kindName(x.kind)} (${t(`shape.${x.shape}`)})`]),
     ...(g.objectives || []).map((o) => ["objectives", o.id, `${o.id} · ${o.name || ""}`])].forEach(([kind, id, label]) => {
      const li = document.createElement("li");
      li.textContent = label + " ";
      const b = document.createElement("button");
      b.type = "button"; b.textContent = t("action.delete");
      b.addEventListener("click", guard(() => api("DELETE", `api/${kind}/${encodeURIComponent(id)}`)));
      li.appendChild(b); list.appendChild(li);
    });
    renderDetected();
  }
  function renderDetected() {
    if (!S.game) return;
    const ul = $("#su-detected");
    if (ul.contains(document.activeElement)) return; // do not redraw under the user's hand
    const models = (S.game.game.models || []).map((m) => [m.id, `${m.name || m.id} (${m.unit})`]);
    const byMarker = {};
    (S.game.game.models || []).forEach((m) => { if (m.marker_id !== undefined) byMarker[m.marker_id] = m.id; });
    const gone = removedMarkers();
    const rows = [...((S.live && S.live.models) || []).filter((m) => !gone[m.marker_id]).map((m) => ({ key: "marker_id", id: m.marker_id, label: `${t("marker")} #${m.marker_id}`, current: byMarker[m.marker_id] })),
      ...((S.live && S.live.bases) || []).map((b) => ({ key: "base_id", id: b.base_id, label: `${t("base")} ${b.base_id} (${b.side || "?"}, ${b.diameter_mm} mm)`,
        current: ((S.game.game.models || []).find((m) => m.extra && m.extra.base_track === b.base_id) || {}).id }))];
    const removedRows = ((S.live && S.live.models) || []).filter((m) => gone[m.marker_id]).map((m) => [m.marker_id, gone[m.marker_id].name]);
    const sig = JSON.stringify([rows, models, removedRows, S.lang]);
    if (sig === S.detectedSig) return;
    S.detectedSig = sig;
    ul.replaceChildren();
    removedRows.forEach(([id, name]) => {  // a casualty's marker still on the table: known, not to assign
      const li = document.createElement("li");
      li.className = "removed-row";
      li.textContent = t("marker_removed", { id, name });
      ul.appendChild(li);
    });
    rows.forEach((r) => {
      const li = document.createElement("li");
      li.textContent = `${r.label} → `;
      const sel = document.createElement("select");
      fillSelect(sel, models, true);
      sel.value = r.current || "";
      const b = document.createElement("button");
      b.type = "button"; b.textContent = t("action.assign");
      b.addEventListener("click", guard(() => sel.value && api("POST", "api/setup/assign", { model: sel.value, [r.key]: r.id })));
      li.append(sel, " ", b);
      if (!r.current) li.classList.add("unassigned-row");
      ul.appendChild(li);
    });
  }

  // -- log -------------------------------------------------------------------------------------
  async function loadLog() {
    const current = ticket("log");
    const data = await api("GET", "api/log?limit=200");
    if (!current()) return;  // a newer change's log was asked for since: it is the one shown
    S.logEvents = data.events;
    renderLog(data.events);
  }
  const unitName = (id) => { const u = ((S.game && S.game.game.units) || []).find((x) => x.id === id); return u ? (u.name || u.id) : id; };
  function actionName(a) { return t(`action_name.${a}`) === `action_name.${a}` ? a : t(`action_name.${a}`); }
  // what an applied resolution changed, in words: removed, wounded, shaken, counters spent
  function changesText(ch) {
    if (!ch) return [];
    const out = [];
    const who = (r) => (r.unit_name && r.unit_name !== r.name && r.unit_name !== r.model ? `${r.name} (${r.unit_name})` : r.name);
    if ((ch.removed || []).length) out.push(t("changed.removed", { who: ch.removed.map(who).join(", ") }));
    (ch.status || []).forEach((r) => {
      if (r.added.length) out.push(t("changed.status_added", { who: who(r), what: r.added.map(statusWord).join(", ") }));
      if (r.removed.length) out.push(t("changed.status_removed", { who: who(r), what: r.removed.map(statusWord).join(", ") }));
    });
    const counters = (who, changed) => { const what = countersText(changed); if (what) out.push(t("changed.counters", { who, what })); };
    (ch.models || []).forEach((r) => counters(who(r), r.changed));
    (ch.units || []).forEach((r) => counters(r.unit_name, r.changed));
    const state = countersText(ch.state || {});
    if (state) out.push(t("changed.state", { what: state }));
    if (!out.length) out.push(t("changed.nothing"));
    return out;
  }
  function statusWord(s) { return t(`status_word.${s}`) === `status_word.${s}` ? s : t(`status_word.${s}`); }
  function countersText(changed) {
    const plainValue = (v) => v === null || v === undefined || ["number", "boolean", "string"].includes(typeof v);
    return Object.entries(changed).filter(([, [a, b]]) => plainValue(a) && plainValue(b) && a !== null && a !== undefined).map(([k, [a, b]]) => {
      const word = t(`counter.${k}`) === `counter.${k}` ? k.replace(/_/g, " ") : t(`counter.${k}`);
      const plain = (v) => (v === null || v === undefined ? "—" : (typeof v === "object" ? (Array.isArray(v) ? fmtNum(v.length) : "…") : fmtValue(v)));
      return `${word} ${plain(a)} → ${plain(b)}`;
    }).join(", ");
  }
  function logText(e) {
    const p = { ...e.payload };
    if (e.kind === "placed") p.models = (p.models || []).map((m) => nameOf(m.model));
    if (e.kind === "move" || e.kind === "place") p.model = p.name || nameOf(p.model);
    if (e.kind === "move" && typeof p.distance_mm === "number") p.distance = unitFmt(p.distance_mm);
    if (e.kind === "assign") p.model = nameOf(p.model);
    if (e.kind === "resolution") {
      const names = p.names || {};
      const req = p.request || {};
      // the units and models by their names, acting → acted upon; the rest (weapon...) in brackets
      const actors = Object.keys(req).filter((k) => names[k]).map((k) => names[k]);
      const rest = Object.keys(req).filter((k) => !names[k] && ["string", "number"].includes(typeof req[k])).map((k) => fmtValue(req[k]));
      const who = actors.join(" → ") + (rest.length ? ` (${rest.join(", ")})` : "");
      const head = t("log.resolution", { action: actionName(p.action), who, dice: p.dice || [] });
      return p.changes ? t("log.with_changes", { head, changes: changesText(p.changes).join(t("list_sep")) }) : head;
    }
    if (e.kind === "undo") {
      const target = (S.logEvents || []).find((x) => x.id === p.undoes);
      p.what = target ? logText(target) : `#${p.undoes}`;
      p.n = (p.undone || [p.undoes]).length;
      return t(p.n > 1 ? "log.undo_many" : "log.undo", p);
    }
    if (e.kind === "setup.ruleset") {
      p.ruleset = rulesetName(p.ruleset);
      const m = Object.entries(p.mapping || {}).map(([id, k]) => `${terrainName(id)} → ${kindName(k)}`);
      return t("log.setup.ruleset", p) + (m.length ? ` (${t("terrain_now")} ${m.join(", ")})` : "");
    }
    if (e.kind === "marker_rejected") {  // worded by the server in both languages (its catalogues)
      return t("log.marker_rejected", { what: worded(p, p.reason || "") });
    }
    if (e.kind === "terrain.add") p.kind = kindName(p.kind);
    const key = `log.${e.kind}`;
    const text = t(key, p);
    return text === key ? e.kind : text;
  }
  function logItem(e) {
    const li = document.createElement("li");
    li.className = `log-${e.kind.replace(/\./g, "-")}${e.undone ? " undone" : ""}${e.actor === "tracker" ? " camera" : ""}`;
    const time = new Date(e.at_s * 1000).toLocaleTimeString(S.lang === "fr" ? "fr-FR" : "en-GB");
    li.append(`${time} · ${t(`actor.${e.actor}`)} · ${logText(e)}${e.undone ? ` (${t("undone")})` : ""}`);
    if (e.undoable) {  // undo back to this entry (this action and the players' later ones)
      const b = document.createElement("button");
      b.type = "button"; b.className = "undo-to"; b.textContent = t("action.undo_to");
      b.addEventListener("click", guard(() => api("POST", "api/undo", { event: e.id })));
      li.appendChild(b);
    }
    li.value = e.id;
    li.dataset.event = e.id;
    return li;
  }
  // Newest first; a run of CAMERA_RUN or more camera entries of one family (moves and placements, or
  // markers not followed) is folded into one line (the players' actions stay in sight however much
  // the camera has seen, and a marker not followed is not hidden among moves).
  const CAMERA_RUN = 3;
  const cameraFamily = (e) => (e.actor !== "tracker" ? null : (e.kind === "marker_rejected" ? "rejected" : "moves"));
  function renderLog(events) {
    const ol = $("#log");
    const open = new Set($$("#log details[open]").map((d) => d.dataset.first));
    ol.replaceChildren();
    const rows = events.slice().reverse();
    for (let i = 0; i < rows.length;) {
      const family = cameraFamily(rows[i]);
      let j = i;
      while (family && j < rows.length && cameraFamily(rows[j]) === family) j += 1;
      if (j - i >= CAMERA_RUN) {
        const li = document.createElement("li");
        li.className = `camera camera-run${family === "rejected" ? " camera-rejected" : ""}`;
        li.value = rows[i].id;
        const det = document.createElement("details");
        det.dataset.first = String(rows[i].id);
        if (open.has(det.dataset.first)) det.open = true;
        const sum = document.createElement("summary");
        sum.textContent = t(family === "rejected" ? "log.camera_rejected_run" : "log.camera_run", { n: j - i });
        const inner = document.createElement("ol");
        inner.reversed = true;
        rows.slice(i, j).forEach((e) => inner.appendChild(logItem(e)));
        det.append(sum, inner);
        li.appendChild(det);
        ol.appendChild(li);
        i = j;
      } else {
        ol.appendChild(logItem(rows[i]));
        i += 1;
      }
    }
  }

  // -- resolution ------------------------------------------------------------------------------
  function formCtx() {
    return { t, game: S.game.game, onChange: onFormChange,
             label: (kind, id) => {
               if (kind === "unit") return `${unitName(id)} (${((S.game.game.units || []).find((u) => u.id === id) || {}).side || "?"})`;
               const m = modelById(id) || {}, unit = unitName(m.unit);
               return m.unit && unit !== nameOf(id) && m.unit !== id ? `${nameOf(id)} · ${unit}` : nameOf(id);
             } };
  }
  function renderForm() {
    const action = $("#rs-action").value;
    const desc = (S.actionForms || {})[action];
    if (!desc || !S.game) { $("#rs-form").replaceChildren(); return; }
    TT_FORMS.render($("#rs-form"), desc, formCtx());
  }
  function onFormChange() {
    // a new question: the old answer goes (never an old result beside a new error)
    S.resolution = null; S.lastRoll = null; $("#resolution").replaceChildren(); $("#rs-apply").disabled = true;
    ticket("resolve");  // an answer still on its way is for the old question
    previewShot().catch((err) => showError(err, $("#rs-form")));
  }

  // -- the shot shown before it is taken --------------------------------------------------------
  // Choosing who shoots draws, for every enemy unit, not visible / refused (out of range...) /
  // in cover / clear with each weapon's chance of at least one casualty; choosing the target
  // draws the rule set's own geometry of that shot, with no further click.
  async function previewShot() {
    if (S.rulesetPending) return;  // the new rule set's forms and questions first
    const desc = (S.actionForms || {}).shoot;
    const raw = TT_FORMS.read($("#rs-form"), true);
    const clear = () => { S.layers.preview = []; S.layers.aim = []; S.previewKey = null; $("#rs-preview").replaceChildren(); renderAll(); };
    if ($("#rs-action").value !== "shoot" || !desc || desc.args.length < 2) { clear(); return; }
    const first = desc.args[0], second = desc.args[1];
    const actor = raw[first.name];
    if (!actor) { clear(); return; }
    const unit = first.kind === "unit" ? actor : (modelById(actor) || {}).unit;
    if (!unit || !(S.game.game.models || []).some((m) => m.unit === unit)) { clear(); return; }
    const key = `${S.game.version || ""}|${unit}`;
    const t0 = performance.now();
    if (S.previewKey !== key) {
      S.previewKey = key;
      const current = ticket("preview");
      const ans = await api("GET", `api/shot-preview?unit=${encodeURIComponent(unit)}`);
      if (!current()) return;  // a newer choice, or a newer game, already
      S.preview = ans;
      drawPreview(ans);
      S.timings.preview = performance.now() - t0;
    }
    S.layers.aim = [];
    const target = raw[second.name];
    const targetUnit = target ? (second.kind === "unit" ? target : (modelById(target) || {}).unit) : null;
    S.layers.preview.forEach((sh) => { if (sh.unit) sh.hidden = Boolean(targetUnit) && sh.unit !== targetUnit; });
    if (target && !S.rulesetPending) await aimAt(unit, actor, target, raw.weapon);
    renderAll();
  }
  // the short mark beside an enemy unit on the plan (the list says it in full)
  function previewWord(e) {
    if (e.status === "not_visible" || e.status === "refused") return t(`preview.short_${e.status}`);
    const best = e.weapons.filter((w) => w.chance !== null).sort((a, b) => b.chance - a.chance)[0];
    const chance = best ? pct(best.chance, 0) : "";
    return e.status === "cover" ? `${t("preview.short_cover")} ${chance}` : chance || t("preview.clear");
  }
  function drawPreview(ans) {
    const shapes = [];
    const items = ans.enemies.map((e) => {
      shapes.push({ kind: "line", pts: [ans.centre_mm, e.centre_mm], cls: `preview preview-${e.status}` });
      shapes.push({ kind: "text", at: [e.centre_mm[0], e.centre_mm[1] - 28], text: previewWord(e), cls: `preview-label preview-${e.status}`, size: 0.75, unit: e.unit });
      const odds = e.weapons.map((w) => `${w.weapon || t("arg.weapon")}${t("sep")}${w.chance === null ? "?" : t("preview.chance", { pct: pct(w.chance, 0) })}`);
      const why = e.status === "refused" && e.reason ? ` (${errorText({ text: e.reason_text, message: e.reason })})` : "";
      return `<li data-unit="${esc(e.unit)}" data-status="${e.status}"><b>${esc(unitName(e.unit))}</b>${t("sep")}${esc(t(`preview.${e.status}`))}${esc(why)}${odds.length ? ` · ${esc(odds.join(" · "))}` : ""}</li>`;
    });
    S.layers.preview = shapes;
    $("#rs-preview").innerHTML = `<p class="hint">${esc(t("preview.title", { who: unitName(ans.unit) }))}</p><ul id="shot-preview">${items.join("")}</ul>`;
  }
  const nearestOf = (ids, p) => ids.map((id) => [id, centre(id)]).filter(([, c]) => c).sort((a, b) => Math.hypot(a[1][0] - p[0], a[1][1] - p[1]) - Math.hypot(b[1][0] - p[0], b[1][1] - p[1]))[0];
  const modelsOfUnit = (u) => (S.game.game.models || []).filter((m) => m.unit === u).map((m) => m.id);
  // The rule set's geometry of the chosen shot (AT-43 fire zone and impact order, Firefight sight
  // lines and cover, Feu à Volonté front arc and range bands, Star Wars range and the 50 % rule,
  // High Fire line of fire through terrain), drawn at once.
  async function aimAt(unit, actor, target, weapon) {
    const rs = S.game.game.ruleset, shapes = [], lines = [];
    if (rs === "at-43" && has("firezone") && !S.rulesetPending) {
      $("#fz-firing").value = unit; $("#fz-target").value = target;
      await fireZone();
      lines.push(($("#firezone-result") || {}).textContent || "");
    } else if (rs === "firefight" || rs === "high-fire") {
      const [los, cov] = await Promise.all([ask("los", [unit, target]), has("cover") ? ask("cover", [unit, target]) : null]);
      const pairs = los.pairs || los.sees || {};
      const targets = modelsOfUnit(target);
      modelsOfUnit(unit).forEach((a) => {
        const ca = centre(a); if (!ca) return;
        const seen = pairs[a] || [];
        const near = nearestOf(seen.length ? seen : targets, ca);
        if (near) shapes.push({ kind: "line", pts: [ca, near[1]], cls: seen.length ? "los-clear" : "los-blocked" });
      });
      const covered = cov ? Object.entries(cov.models || cov.affected || {}).filter(([, v]) => (Array.isArray(v) ? v.length : v.in_cover)).map(([id]) => id) : [];
      covered.forEach((id) => { const c = centre(id); if (c) shapes.push({ kind: "circle", c, r: (modelById(id).base_mm / 2) + 6, cls: "in-cover" }); });
      const seeing = Object.values(pairs).filter((v) => v.length).length;
      lines.push(t(los.visible ? "aim.sees" : "aim.no_sight", { n: seeing, of: modelsOfUnit(unit).length }));
      if (cov) lines.push(t("aim.cover", { n: covered.length, of: targets.length }));
    } else if (rs === "feu-a-volonte" || rs === "star-wars") {
      const qs = [ask("range", weapon ? [actor, target, "--weapon", weapon] : [actor, target]), ask("los", [actor, target])];
      if (rs === "feu-a-volonte" && has("arc")) qs.push(ask("arc", [actor, target]));
      if (rs === "star-wars" && has("cover")) qs.push(ask("cover", [actor, target]));
      const [range, los, third] = await Promise.all(qs);
      const v = sightVerdict(los);
      S.highlight = new Set(v.blockers);
      shapes.push({ kind: "line", pts: [centre(actor), centre(target)], cls: v.visible ? (v.key === "sight.visible" ? "los-clear" : "los-partial") : "los-blocked" });
      $("#rg-model").value = actor; fillWeapons();
      const w = weapon || ((modelById(actor) || {}).weapons || []).find((x) => weaponRange(x));
      if (w && weaponRange(w)) { $("#rg-weapon").value = w; $("#rg-range").value = String(weaponRange(w)); }
      await rangeBands(true);
      shapes.push(...S.layers.range); S.layers.range = [];  // this shot's rings: they go with it
      lines.push(`${v.text} · ${unitFmt(range.distance.mm)} · ${bandText(range.band)}${range.in_range === false ? ` · ${t("preview.refused")}` : ""}`);
      if (rs === "feu-a-volonte" && third) {
        const front = third.can_shoot;
        lines.push(t(front ? "aim.front_arc" : "aim.outside_arc", { deg: fmtNum(Math.abs(third.relative_deg), 0) }));
        const c = centre(actor), r = 60, m = modelById(actor), face = ((m && m.facing_deg) || 0) * Math.PI / 180;
        if (c && m && m.facing_deg !== undefined && m.facing_deg !== null) {
          const pts = [c]; for (let i = 0; i <= 18; i += 1) { const a = face - Math.PI / 2 + (Math.PI * i) / 18; pts.push([c[0] + r * 3 * Math.cos(a), c[1] + r * 3 * Math.sin(a)]); }
          shapes.push({ kind: "poly", pts, cls: "front-arc" });
        }
      }
      if (rs === "star-wars" && third) {
        lines.push(t(third.hidden ? "aim.hidden_over_half" : "aim.hidden_under_half", { pct: pct(third.hidden_fraction || 0, 0) }));
      }
    }
    S.layers.aim = shapes;
    $$("#aim-result").forEach((e) => e.remove());  // one answer, the latest
    const box = document.createElement("p");
    box.id = "aim-result"; box.className = "big";
    box.textContent = lines.filter(Boolean).join(" — ");
    $("#rs-preview").appendChild(box);
  }
  function resolutionRequest() {
    return { action: $("#rs-action").value, request: TT_FORMS.read($("#rs-form")) };
  }
  function outcomeText(o) {
    if (Array.isArray(o)) return o.map(outcomeText).join(", ");
    if (typeof o === "string") return t(`outcome.${o}`) === `outcome.${o}` ? ruleWord(o) : t(`outcome.${o}`);
    return fmtValue(o);
  }
  function oddsHtml(odds) {
    return Object.entries(odds || {}).map(([name, dist]) => `<table class="odds"><caption>${esc(ruleWord(name))}</caption>${
      (Array.isArray(dist) ? dist : []).map((row) => `<tr><td>${esc(outcomeText(row.outcome))}</td><td>${pct(row.p !== undefined ? row.p : row.probability || 0)}</td></tr>`).join("")}</table>`).join("");
  }
  // the chance of at least one casualty, from the odds of models removed (else wounds, else hits)
  function casualtyChance(odds) {
    const names = Object.keys(odds || {});
    const pick = names.find((n) => /removed|killed|casualt|out of action/i.test(n)) || names.find((n) => /wound/i.test(n)) || null;
    if (!pick) return null;
    const first = (o) => (Array.isArray(o) ? o[0] : o);
    const hurt = (o) => o === true || (typeof o === "number" && o >= 1);
    const p = odds[pick].reduce((acc, row) => acc + (hurt(first(row.outcome)) ? (row.probability || row.p || 0) : 0), 0);
    return { p, removed: /removed|killed|casualt|out of action/i.test(pick) };
  }
  function headline(res) {
    const r = res.result;
    if (r) {
      // the models the roll would remove: in the game now, not in the game after it (any rule set)
      const after = res.game ? new Set((res.game.models || []).map((m) => m.id)) : null;
      const removed = after ? (S.game.game.models || []).map((m) => m.id).filter((id) => !after.has(id)) : [].concat(r.removed || []);
      const bits = [];
      if (typeof r.hits === "number") bits.push(t("headline.hits", { n: r.hits }));
      bits.push(removed.length ? t("headline.removed", { who: removed.map(nameOf).join(", ") }) : t("headline.no_casualty"));
      if (r.effect && r.effect !== "none") bits.push(outcomeText(r.effect));
      return bits.join(t("sep"));
    }
    const c = typeof res.casualty_chance === "number" ? { p: res.casualty_chance, removed: true } : casualtyChance(res.odds);
    if (!c) return t("headline.odds");
    return t(c.removed ? "headline.chance_removed" : "headline.chance_wound", { pct: pct(c.p, 0) });
  }
  function showResolution(res) {
    // a roll ("5+"), or words ("higher total") the server says in both languages (needed_words)
    const needed = Object.entries(res.needed || {}).map(([k, v]) =>
      `${esc(ruleWord(k))}${t("sep")}<b>${esc(worded((res.needed_words || {})[k], v))}</b>`).join(" · ");
    let html = `<p class="headline" id="rs-headline">${esc(headline(res))}</p>`;
    if (res.result) html += `<p class="dice-line">${t("dice")}${t("sep")}<b id="rolled-dice">${(res.dice || []).map((d) => d.value).join(", ")}</b></p>`;
    html += needed ? `<p id="rs-needed">${t("needed")} ${needed}</p>` : "";
    html += `<div class="odds-tables">${oddsHtml(res.odds)}</div>`;
    html += explanationHtml(res);
    $("#resolution").innerHTML = html;
  }
  function showApplied(event) {
    const lines = changesText(event.payload.changes);
    $("#applied").innerHTML = `<p class="headline">${t("applied")}</p><ul id="applied-list">${lines.map((l) => `<li>${esc(l)}</li>`).join("")}</ul>`;
  }
  async function resolveWith(extra) {
    S.applied = null; $("#applied").replaceChildren();
    $("#resolution").replaceChildren(); S.resolution = null;
    const body = { ...resolutionRequest(), ...extra };
    const current = ticket("resolve");
    const res = await api("POST", "api/resolve", body);
    if (!current()) return;  // the form changed, or another roll was asked, meanwhile
    S.resolution = res;
    // applied as asked: these dice with the request they were rolled for, never with the form as it is now
    S.lastRoll = res.result ? { action: body.action, request: body.request, dice: (res.dice || []).map((d) => d.value) } : null;
    $("#rs-apply").disabled = !(S.lastRoll && res.game);
    showResolution(res);
    $("#rs-headline").scrollIntoView({ block: "start" });
  }

  // -- selection: a tapped model feeds the tools and the action form -----------------------------
  function selectModel(id) {
    const m = modelById(id);
    if (!m) return;
    S.selected = id;
    $("#rg-model").value = id;
    fillWeapons();
    const form = $("#rs-form");
    const unitPick = form.querySelector("select[data-kind=unit]"), modelPick = form.querySelector("select[data-kind=model]");
    if (modelPick && !modelPick.value) { modelPick.value = id; modelPick.dispatchEvent(new Event("change")); }
    else if (unitPick && !unitPick.value) { unitPick.value = m.unit; unitPick.dispatchEvent(new Event("change")); }
    offerActions(id);
    renderAll();
  }
  // A tapped model: what it can do now (measure or check sight from it, its weapon's range, the
  // rule set's actions with it as the actor), each one tap away.
  function offerActions(id) {
    const m = modelById(id);
    ticket("answer");  // a measurement or sight line still on its way never replaces this box
    const box = $("#answer");
    box.replaceChildren();
    const title = document.createElement("p");
    title.className = "big"; title.id = "selected-model";
    title.textContent = `${nameOf(id)}${m.unit && unitName(m.unit) !== nameOf(id) ? ` · ${unitName(m.unit)}` : ""}`;
    const row = document.createElement("div");
    row.className = "row model-actions";
    const button = (key, fn) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = t(key); b.dataset.offer = key;
      b.addEventListener("click", guard(fn));
      row.appendChild(b);
    };
    button("offer.measure", () => { setTool("measure"); S.picks = [id]; $("#tool-hint").textContent = t("hint.measure2"); renderAll(); });
    button("offer.los", () => { setTool("los"); S.picks = [id]; $("#tool-hint").textContent = t("hint.los2"); renderAll(); });
    if ((m.weapons || []).some((w) => weaponRange(w))) {
      button("offer.range", () => { $("#rg-weapon").value = (m.weapons || []).find((w) => weaponRange(w)); return onWeapon(); });
    }
    Object.values(S.actionForms || {}).filter((f) => f.described && f.args.length && ["unit", "model"].includes(f.args[0].kind)).forEach((f) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = actionName(f.action); b.dataset.offer = f.action;
      b.addEventListener("click", () => {
        S.actionChosen = true;
        $("#rs-action").value = f.action; onFormChange(); renderForm();
        const first = $("#rs-form").querySelector("[data-arg]");
        if (first) { first.value = f.args[0].kind === "unit" ? m.unit : id; first.dispatchEvent(new Event("change")); }
        $$(".tabs button").forEach((x) => x.classList.toggle("on", x.dataset.tab === "resolve"));
        $$(".tab").forEach((x) => { x.hidden = x.id !== "tab-resolve"; });
      });
      row.appendChild(b);
    });
    box.append(title, row, elevationControl(m));
  }
  // The ground a model stands on (a building's floor, a hill), in the rule set's unit or in mm; when
  // the model stands on a terrain piece whose height is known, that height is proposed. Setting it is
  // a player's action (logged, undoable); sight and cover then use it.
  function inside(p, pts) {
    let In = false;
    for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
      const [xi, yi] = pts[i], [xj, yj] = pts[j];
      if ((yi > p[1]) !== (yj > p[1]) && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) In = !In;
    }
    return In;
  }
  function pieceUnder(m) {
    return (S.game.game.terrain || []).find((tr) => tr.shape === "area" && typeof tr.height_mm === "number"
      && tr.height_mm > 0 && inside([m.x_mm, m.y_mm], tr.points_mm)) || null;
  }
  function elevationControl(m) {
    const box = document.createElement("div");
    box.className = "elevation"; box.id = "elevation-control";
    const row = document.createElement("div");
    row.className = "row";
    const label = document.createElement("label");
    const words = document.createElement("span");
    words.textContent = t("label.elevation");
    const input = document.createElement("input");
    Object.assign(input, { type: "number", id: "elevation-value", step: "any", min: "0", size: 5 });
    input.inputMode = "decimal";
    const unitSel = document.createElement("select");
    unitSel.id = "elevation-unit";
    const u = S.game.unit;
    const units = u.symbol === "mm" ? [["mm", 1]] : [[u.symbol, u.mm], ["mm", 1]];
    units.forEach(([sym, mm]) => { const o = document.createElement("option"); o.value = String(mm); o.textContent = sym; unitSel.appendChild(o); });
    const under = pieceUnder(m);
    const show = (mm) => { input.value = String(Math.round((mm / Number(unitSel.value)) * 100) / 100); };
    show(m.elevation_mm || (under ? under.height_mm : 0));
    let shownIn = Number(unitSel.value);
    unitSel.addEventListener("change", () => {
      const v = parseFloat(input.value);
      if (Number.isFinite(v)) show(v * shownIn);
      shownIn = Number(unitSel.value);
    });
    label.append(words, " ", input, " ", unitSel);
    const set = document.createElement("button");
    set.type = "button"; set.id = "elevation-set"; set.textContent = t("action.set");
    set.addEventListener("click", guard(async () => {
      const v = parseFloat(String(input.value).replace(",", "."));
      if (!Number.isFinite(v)) throw Object.assign(new Error("elevation"), { code: "elevation_typed", params: {} });
      const mm = Math.round(v * Number(unitSel.value) * 10) / 10;
      await api("POST", `api/models/${encodeURIComponent(m.id)}/elevation`, { elevation_mm: mm });
      hint.textContent = t("elevation.done", { model: nameOf(m.id), height: unitFmt(mm) });
    }));
    row.append(label, set);
    const hint = document.createElement("p");
    hint.className = "hint"; hint.id = "elevation-hint";
    if (under) hint.textContent = t("elevation.on_piece", { piece: terrainName(under.id), height: unitFmt(under.height_mm) });
    else if (m.elevation_mm) hint.textContent = t("elevation.now", { height: unitFmt(m.elevation_mm) });
    box.append(row, hint);
    return box;
  }
  function fillWeapons() {
    const m = modelById($("#rg-model").value);
    fillSelect($("#rg-weapon"), ((m && m.weapons) || []).map((w) => {
      const r = weaponRange(w);
      return [w, r ? `${w} (${fmtNum(r)}${S.game.unit.symbol === '"' ? '"' : ` ${S.game.unit.symbol}`})` : w];
    }), true);
  }
  function onWeapon() {
    const r = weaponRange($("#rg-weapon").value);
    if (r) $("#rg-range").value = String(Math.round(r * 100) / 100);
    return rangeBands();
  }

  // -- rule set: a switch proposes each terrain piece's kind there, confirmed in one step -------------
  const rulesetName = (r) => (t(`ruleset.${r}`) === `ruleset.${r}` ? r : t(`ruleset.${r}`));
  const kindName = (k) => (t(`kind.${k}`) === `kind.${k}` ? k : t(`kind.${k}`));
  async function proposeRuleset() {
    const rs = $("#su-ruleset").value;
    S.proposal = null; $("#su-mapping").hidden = true; $("#su-mapping").replaceChildren();
    if (rs === S.game.game.ruleset) return;
    try {
      const prop = await api("POST", "api/setup/ruleset/proposal", { ruleset: rs });
      S.proposal = prop;
      showProposal(prop);
    } catch (err) {
      $("#su-ruleset").value = S.game.game.ruleset;  // never left showing a rule set the game is not in
      throw err;
    }
  }
  function showProposal(prop) {
    const box = $("#su-mapping");
    box.replaceChildren();
    const pieces = prop.pieces || [];
    const p = document.createElement("p");
    p.className = "hint";
    p.textContent = pieces.length ? t("mapping.intro", { ruleset: rulesetName(prop.ruleset) }) : t("mapping.none", { ruleset: rulesetName(prop.ruleset) });
    box.appendChild(p);
    pieces.forEach((pc) => {
      const label = document.createElement("label");
      label.append(`${pc.name || pc.terrain} (${kindName(pc.kind)}) → `);
      const sel = document.createElement("select");
      sel.dataset.terrain = pc.terrain;
      fillSelect(sel, pc.choices.map((k) => [k, kindName(k)]), false);
      if (pc.proposed) sel.value = pc.proposed;
      label.appendChild(sel);
      box.appendChild(label);
    });
    box.hidden = false;
  }
  async function applySetup() {
    const g = S.game.game, rs = $("#su-ruleset").value;
    if (rs !== g.ruleset) {
      const mapping = {};
      $$("#su-mapping select[data-terrain]").forEach((sel) => { mapping[sel.dataset.terrain] = sel.value; });
      try {
        await api("POST", "api/setup/ruleset", { ruleset: rs, mapping });
      } catch (err) {
        $("#su-ruleset").value = g.ruleset;
        if (err.body && err.body.proposal) { S.proposal = { ruleset: rs, pieces: err.body.proposal }; }
        throw err;
      }
      S.proposal = null; $("#su-mapping").hidden = true;
    }
    const w = parseFloat($("#su-width").value), d = parseFloat($("#su-depth").value);
    if (w !== g.table.width_mm || d !== g.table.depth_mm) await api("POST", "api/setup/table", { width_mm: w, depth_mm: d });
    await loadState();
  }

  // -- legend: every mark the plan draws --------------------------------------------------------------
  function renderLegend() {
    const box = $("#legend");
    const sw = (shape) => `<svg viewBox="0 0 40 24" aria-hidden="true">${shape}</svg>`;
    const sides = Object.entries((S.game && S.game.sides) || {});
    const items = [
      ...sides.map(([side, colour]) => [sw(`<circle cx="20" cy="12" r="9" class="model" fill="${esc(colour)}" stroke="${esc(colour)}"/>`), t("legend.side", { side })]),
      [sw('<circle cx="20" cy="12" r="9" class="model leader" fill="#888" stroke="#ddd"/>'), t("legend.leader")],
      [sw('<circle cx="20" cy="12" r="9" class="model unseen" fill="#888" stroke="#ddd"/>'), t("legend.unseen")],
      [sw('<circle cx="20" cy="12" r="9" class="model picked" fill="#888"/>'), t("legend.picked")],
      [sw('<circle cx="20" cy="12" r="10" class="cohesion-ring"/>'), t("legend.cohesion")],
      [sw('<text x="20" y="17" class="elevation-label" font-size="14">↑</text>'), t("legend.elevation")],
      [sw('<circle cx="20" cy="12" r="9" class="unassigned"/>'), t("legend.unknown_marker")],
      [sw('<circle cx="20" cy="12" r="9" class="removed-marker"/><path d="M13 5 L27 19 M13 19 L27 5" class="removed-cross"/>'), t("legend.removed")],
      [sw('<path d="M4 12 H36" class="last-move"/>'), t("legend.last_move")],
      [sw('<path d="M4 12 H36" class="measure"/>'), t("legend.measure")],
      [sw('<path d="M4 12 H36" class="los-clear"/>'), t("sight.visible")],
      [sw('<path d="M4 12 H36" class="los-partial"/>'), t("legend.partly_hidden")],
      [sw('<path d="M4 12 H36" class="los-blocked"/>'), t("sight.blocked")],
      [sw('<rect x="4" y="3" width="32" height="18" class="terrain terrain-area"/>'), t("legend.terrain")],
      [sw('<path d="M4 12 H36" class="terrain terrain-line"/>'), t("legend.terrain_line")],
      [sw('<rect x="4" y="3" width="32" height="18" class="terrain blocking"/>'), t("legend.blocking")],
      [sw('<circle cx="20" cy="12" r="10" class="range-band band-0"/>'), t("legend.range")],
      [sw('<rect x="4" y="3" width="32" height="18" class="firezone"/>'), t("legend.firezone")],
      [sw('<circle cx="20" cy="12" r="10" class="template"/>'), t("legend.template")],
      [sw('<circle cx="20" cy="12" r="10" class="aura"/>'), t("legend.aura")],
      [sw('<circle cx="20" cy="12" r="5" class="objective"/>'), t("legend.objective")],
      [sw('<rect x="4" y="3" width="32" height="18" class="deployment"/>'), t("legend.deployment")],
    ];
    box.innerHTML = `<ul>${items.map(([s, text]) => `<li>${s}<span>${esc(text)}</span></li>`).join("")}</ul>`;
  }

  // -- wiring ----------------------------------------------------------------------------------
  function wire() {
    $$(".lang-switch button").forEach((b) => b.addEventListener("click", () => { S.lang = b.dataset.lang; localStorage.setItem("tt_lang", S.lang); applyLang(); }));
    $("#camera-toggle").addEventListener("click", () => {
      const off = $("#views").classList.toggle("camera-off");
      $("#camera-toggle").classList.toggle("on", !off);
      $("#camera-toggle").setAttribute("aria-pressed", String(!off));
      renderAll();
    });
    $("#legend-toggle").addEventListener("click", () => {
      const show = $("#legend").hidden;
      $("#legend").hidden = !show;
      $("#legend-toggle").classList.toggle("on", show);
      $("#legend-toggle").setAttribute("aria-pressed", String(show));
    });
    $("#sheet-handle").addEventListener("click", () => {  // phone: the sheet low, half, full
      const sheet = $("#sheet");
      const next = sheet.classList.contains("full") ? "low" : (sheet.classList.contains("low") ? "" : "full");
      sheet.classList.remove("full", "low");
      if (next) sheet.classList.add(next);
      $("#sheet-handle").setAttribute("aria-expanded", String(next === "full"));
    });
    $$(".tabs button").forEach((b) => b.addEventListener("click", () => {
      $$(".tabs button").forEach((x) => x.classList.toggle("on", x === b));
      $$(".tab").forEach((x) => { x.hidden = x.id !== `tab-${b.dataset.tab}`; });
      $("#sheet").classList.remove("low");
    }));
    window.addEventListener("resize", () => renderAll());
    $$("[data-tool]").forEach((b) => b.addEventListener("click", () => {
      if (b.dataset.tool === "clear") {
        Object.keys(S.layers).forEach((k) => { if (["tool", "template", "range"].includes(k)) S.layers[k] = []; });
        S.lastTemplate = null;
        S.highlight = new Set(); S.lastPair = null; $("#answer").innerHTML = ""; setTool(null); renderAll(); return;
      }
      setTool(S.tool === b.dataset.tool ? null : b.dataset.tool); renderAll();
    }));
    // pointerdown, not click: the overlay is redrawn with every frame, and a click whose
    // press and release land on two generations of the same drawing would be lost.
    $("#plan-svg").addEventListener("pointerdown", guard((ev) => ev.button === 0 && onViewClick(ev, true)));
    $("#camera-svg").addEventListener("pointerdown", guard((ev) => ev.button === 0 && onViewClick(ev, false)));
    $("#fz-firing").addEventListener("change", guard(fireZone));
    $("#fz-target").addEventListener("change", guard(fireZone));
    $("#rg-show").addEventListener("click", guard(rangeBands));
    $("#rg-model").addEventListener("change", () => { fillWeapons(); });
    $("#rg-weapon").addEventListener("change", guard(onWeapon));
    $("#rs-action").addEventListener("change", () => { S.actionChosen = true; onFormChange(); renderForm(); });
    if (window.matchMedia("(max-width: 700px)").matches) {  // a phone: the plan first, the camera on demand
      $("#plan-svg").setAttribute("preserveAspectRatio", "xMidYMin meet");  // the table right under the header
      $("#views").classList.add("camera-off"); $("#camera-toggle").classList.remove("on");
      $("#camera-toggle").setAttribute("aria-pressed", "false");
    }
    $("#su-ruleset").addEventListener("change", guard(proposeRuleset));
    ["#show-auras", "#show-objectives", "#show-deployment"].forEach((s) => $(s).addEventListener("change", guard(refreshDerived)));
    $("#undo").addEventListener("click", guard(() => api("POST", "api/undo", {})));
    $("#import").addEventListener("change", guard(async (ev) => {
      const f = ev.target.files[0]; if (!f) return;
      const text = await f.text();
      let game; try { game = JSON.parse(text); } catch (e) { throw new Error(`${f.name}: JSON`); }
      await api("POST", "api/game/import", { game, filename: f.name });
      ev.target.value = "";
    }));
    $("#rs-odds").addEventListener("click", guard(() => resolveWith({})));
    $("#rs-roll").addEventListener("click", guard(() => resolveWith({ seed: Math.floor(Math.random() * 2 ** 31) })));
    $("#rs-typed").addEventListener("click", guard(() => {
      const dice = $("#rs-dice").value.split(/[\s,;]+/).filter(Boolean).map(Number);
      if (!dice.length || dice.some((d) => !Number.isInteger(d))) throw Object.assign(new Error("dice"), { code: "dice_typed", params: {} });
      return resolveWith({ dice });
    }));
    $("#rs-apply").addEventListener("click", guard(async () => {
      if (!S.lastRoll) return;
      const out = await api("POST", "api/resolve/apply", S.lastRoll);
      $("#rs-apply").disabled = true; S.lastRoll = null;
      S.applied = out.event;
      showApplied(out.event);
      $("#applied").scrollIntoView({ block: "start" });
    }));
    $("#su-apply").addEventListener("click", guard(applySetup));
    $("#su-rosters").addEventListener("change", guard(async (ev) => {
      const files = Array.from(ev.target.files);
      if (!files.length) return;
      const rosters = await Promise.all(files.map(async (f) => ({ filename: f.name, text: await f.text() })));
      await api("POST", "api/setup/rosters", { rosters });
      ev.target.value = "";
    }));
    $("#tr-draw").addEventListener("click", () => { S.drawing = []; setTool("draw"); $("#tr-done").disabled = true; });
    $("#tr-done").addEventListener("click", guard(async () => {
      const pts = S.drawing || [];
      const body = { kind: $("#tr-kind").value, shape: $("#tr-shape").value, points_mm: pts };
      const h = parseFloat($("#tr-height").value);
      if (h >= 0) body.height_mm = h;
      S.drawing = null; setTool(null); $("#tr-done").disabled = true;
      await api("POST", "api/terrain", body);
    }));
    $("#ob-add").addEventListener("click", () => setTool("objective"));
  }

  // The page's HTML carries the state at load (drawn before any request); later, it is asked for.
  function bootState() {
    const node = document.getElementById("boot-state");
    if (!node) return null;
    node.remove();
    try { return JSON.parse(node.textContent); } catch (e) { return null; }
  }
  async function loadState(boot) {
    const st = boot || await api("GET", "api/state");
    S.server = st.server; S.actions = st.actions; S.questions = st.questions; S.terrainKinds = st.terrain_kinds;
    S.actionForms = st.action_forms || {};
    if (S.server.access_link) {
      const p = $("#lan-link"), a = document.createElement("a");
      a.href = S.server.access_link; a.textContent = S.server.access_link;
      p.replaceChildren(document.createTextNode(`${t("lan.link")} `), a);
      p.hidden = false;
    }
    if (st.live && st.live.seq) S.live = st.live;
    onGame(st.game);
  }

  document.addEventListener("DOMContentLoaded", () => {
    wire();
    applyLang();
    const boot = bootState();
    if (boot) {  // drawn now; the live feed follows
      loadState(boot).catch(showError);
      connect();
    } else {
      loadState().then(connect).catch(showError);
    }
  });
})();
