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
    tool: null, picks: [], highlight: new Set(), outOfCohesion: new Set(),
    layers: { tool: [], firezone: [], numbers: [], range: [], template: [], auras: [], objectives: [], deployment: [] },
    drawing: null, placing: null, resolution: null, lastRoll: null,
    latencyMs: null, imagesBusy: { plan: false, camera: false }, imageSeq: { plan: -1, camera: -1 }, imageAskedAt: {},
  };
  window.TT = S; // for the end-to-end tests and the curious

  // -- words -------------------------------------------------------------------------------
  function t(key, vars) {
    const dict = window.TT_I18N[S.lang] || window.TT_I18N.fr;
    let s = dict[key] !== undefined ? dict[key] : (window.TT_I18N.en[key] !== undefined ? window.TT_I18N.en[key] : key);
    if (vars) s = s.replace(/\{(\w+)\}/g, (_, k) => (vars[k] === undefined || vars[k] === null ? "" : fmtValue(vars[k])));
    return s;
  }
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
    if (v && typeof v === "object") return v.model || v.id || JSON.stringify(v);
    return String(v);
  }
  function applyLang() {
    document.documentElement.lang = S.lang;
    $$("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
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
    if (!res.ok) throw new Error((data && data.error && (data.error[`message_${S.lang}`] || data.error.message)) || `HTTP ${res.status}`);
    return data;
  }
  function showError(err) {
    const el = $("#error");
    el.textContent = `${t("error")} : ${err.message || err}`;
    el.hidden = false;
    clearTimeout(showError.timer);
    showError.timer = setTimeout(() => { el.hidden = true; }, 8000);
  }
  const guard = (fn) => (...args) => Promise.resolve(fn(...args)).catch(showError);

  // -- geometry helpers ----------------------------------------------------------------------
  const table = () => (S.game ? S.game.game.table : { width_mm: 1200, depth_mm: 1200 });
  const unitFmt = (mm) => {
    const u = S.game ? S.game.unit : { symbol: "mm", mm: 1 };
    const v = (mm / u.mm).toFixed(2);
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
  function unassigned() {
    if (!S.live || !S.game) return { markers: [], bases: [] };
    const ids = new Set((S.game.game.models || []).map((m) => m.marker_id));
    const baseIds = new Set((S.game.game.models || []).map((m) => m.extra && m.extra.base_track).filter(Boolean));
    return { markers: (S.live.models || []).filter((m) => !ids.has(m.marker_id)),
             bases: (S.live.bases || []).filter((b) => !baseIds.has(b.base_id)) };
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
      out.push({ kind: "text", at: c, text: tr.name || tr.kind, cls: "terrain-label", size: 0.8 });
    });
    const L = S.layers;
    if ($("#show-deployment").checked) out.push(...L.deployment);
    out.push(...L.range, ...L.template);
    if ($("#show-auras").checked) out.push(...L.auras);
    if ($("#show-objectives").checked) out.push(...L.objectives);
    out.push(...L.firezone);
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
    um.bases.forEach((b) => {
      drawShape({ kind: "circle", c: [b.x_mm, b.y_mm], r: b.diameter_mm / 2, cls: `unassigned${b.seen ? "" : " unseen"}` }, proj, g, fs);
      drawShape({ kind: "text", at: [b.x_mm, b.y_mm], text: b.base_id, cls: "model-label", size: 0.7 }, proj, g, fs);
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
      drawShape({ kind: "text", at: [m.x_mm, m.y_mm - m.base_mm / 2 - 3], text: m.label + (m.seen ? "" : " ?"), cls: "model-label", size: 0.5 }, proj, g, fs);
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
    drawView(plan, projectPlan, Math.max(tb.width_mm, tb.depth_mm) / 45);
    const cam = $("#camera-svg");
    if (S.grid) {
      const [w, h] = S.grid.image_px;
      cam.setAttribute("viewBox", `0 0 ${w} ${h}`);
      ensureImage(cam, "camera", w, h);
      drawView(cam, projectCamera, Math.max(w, h) / 60);
    } else if (S.live && S.live.image_px) {
      // not calibrated yet: the camera image alone, so the players can see what the camera sees
      const [w, h] = S.live.image_px;
      cam.setAttribute("viewBox", `0 0 ${w} ${h}`);
      ensureImage(cam, "camera", w, h);
      cam.querySelectorAll("g.overlay").forEach((g) => g.remove());
    }
    $$(".unit-symbol").forEach((e) => { e.textContent = S.game.unit.symbol; });
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
    if (!S.live || S.imagesBusy[view] || S.imageSeq[view] === S.live.seq) return;
    if (view === "plan" && !S.live.has_plan_image) return;
    const now = Date.now();
    if (now - (S.imageAskedAt[view] || 0) < MIN_IMAGE_INTERVAL_MS) return;
    S.imageAskedAt[view] = now;
    const seq = S.live.seq;
    S.imagesBusy[view] = true;
    const loader = new Image();
    loader.onload = () => {
      S.imagesBusy[view] = false;
      S.imageSeq[view] = seq;
      const img = document.querySelector(`#${view}-svg image`);
      if (img) img.setAttribute("href", loader.src);
      S.shownSeq = seq;
      S.shownLatencyMs = Date.now() - S.live.captured_s * 1000;
    };
    loader.onerror = () => { S.imagesBusy[view] = false; };
    loader.src = `api/frame/${view}.jpg?seq=${seq}`;
  }

  // -- live updates ----------------------------------------------------------------------------
  function setStatus() {
    const st = $("#status");
    let key = "status.starting";
    if (S.offline) key = "status.offline";
    else if (S.server.live === false) key = "status.no_source";
    else if (S.live && S.live.status) key = `status.${S.live.status}`;
    st.dataset.status = S.offline ? "offline" : (S.live ? S.live.status : "starting");
    let text = t(key);
    if (S.latencyMs !== null && S.live && S.live.status === "ok") text += ` · ${Math.round(S.latencyMs)} ms`;
    st.textContent = text;
    const detail = S.live && S.live.message && S.live.status !== "ok" ? S.live.message : "";
    st.title = detail || S.server.source || "";
    $("#status-detail").textContent = detail;
    $("#status-detail").title = detail;
  }

  function connect() {
    const es = new EventSource("api/stream");
    es.addEventListener("game", (ev) => { S.offline = false; onGame(JSON.parse(ev.data)); });
    es.addEventListener("live", (ev) => {
      S.offline = false;
      const live = JSON.parse(ev.data);
      S.live = live;
      S.latencyMs = Date.now() - live.captured_s * 1000;
      S.liveReceived = (S.liveReceived || 0) + 1;
      if (live.calibration_version !== S.gridVersion) loadGrid(live.calibration_version);
      refreshImage("plan"); refreshImage("camera");
      setStatus();
      renderAll();
      renderDetected();
    });
    es.onerror = () => { S.offline = true; setStatus(); };
  }
  async function loadGrid(version) {
    S.gridVersion = version;
    try { S.grid = await api("GET", "api/projection"); renderAll(); } catch (e) { S.grid = null; }
  }

  function onGame(view) {
    const before = S.game;
    S.game = view;
    setStatus();
    $("#views").classList.toggle("no-camera", S.server.live === false);
    $("#game-name").textContent = view.game.name || "";
    fillSelects(before);
    renderAll();
    if (before && before.game.ruleset !== view.game.ruleset) {
      // another rule set: other actions, questions and terrain kinds
      api("GET", "api/state").then((st) => {
        S.actions = st.actions; S.questions = st.questions; S.terrainKinds = st.terrain_kinds;
        fillSelects(); refreshDerived().catch(showError);
      }).catch(showError);
    }
    refreshDerived().catch(showError);
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
    if ($("#fz-firing").value && $("#fz-target").value) await fireZone();
    if ($("#show-objectives").checked) await objectives();
    if ($("#show-auras").checked) await auras();
    if ($("#show-deployment").checked) await deployment();
    renderAll();
  }

  // -- questions -------------------------------------------------------------------------------
  const ask = (question, args, options) => api("POST", "api/ask", { question, args: args || [], options: options || {} });
  const has = (q) => S.questions.length === 0 || S.questions.includes(q);

  function explanationHtml(answer) {
    const steps = (answer && answer.explanation) || [];
    if (!steps.length) return "";
    return `<details open><summary>${t("explanation")}</summary><ul class="explanation">${steps.map((s) =>
      `<li><b>${esc(ruleWord(s.rule))}</b> ${esc(s.text)} <cite>${esc(s.source)}</cite>${s.option ? ` <i>(${esc(s.option)})</i>` : ""}</li>`).join("")}</ul></details>`;
  }
  function esc(s) { return String(s === undefined || s === null ? "" : s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c])); }
  function showAnswer(html, answer) { $("#answer").innerHTML = html + explanationHtml(answer); }
  const num = (v) => (typeof v === "number" ? v : (v && typeof v === "object" && typeof v.mm === "number" ? v.mm : null));
  const modelById = (id) => (S.game.game.models || []).find((m) => m.id === id);
  const centre = (id) => { const m = modelById(id); return m ? [m.x_mm, m.y_mm] : null; };

  function refreshCohesion() {
    // computed by the server once per change of the game, for every watcher at once
    S.outOfCohesion = new Set(Object.values(S.game.cohesion || {}).flat());
  }

  async function measure(a, b) {
    const ans = await ask("distance", [a, b]);
    const c = num(ans.centre_to_centre), e = num(ans.edge_to_edge);
    const pa = centre(a), pb = centre(b);
    const mid = [(pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2];
    const text = [e !== null ? `${t("edge")} ${unitFmt(e)}` : null, c !== null ? `${t("centre")} ${unitFmt(c)}` : null].filter(Boolean).join(" · ");
    S.layers.tool = [{ kind: "line", pts: [pa, pb], cls: "measure" }, { kind: "text", at: mid, text, cls: "measure-label", size: 0.75 }];
    showAnswer(`<p class="big" id="measure-result">${t("distance")} ${esc(a)} → ${esc(b)} : ${esc(text)}</p>`, ans);
  }

  async function lineOfSight(a, b) {
    const ans = await ask("los", [a, b]);
    const clear = ans.visible !== undefined ? ans.visible : (ans.clear !== undefined ? ans.clear : ans.los);
    const blockers = [].concat(ans.blockers || []).map((x) => (typeof x === "string" ? x : x.id));
    S.highlight = new Set(blockers.filter(Boolean));
    S.layers.tool = [{ kind: "line", pts: [centre(a), centre(b)], cls: clear ? "los-clear" : "los-blocked" }];
    const frac = ans.visible_fraction !== undefined ? ` · ${t("visible_fraction")} ${Math.round(ans.visible_fraction * 100)} %` : "";
    showAnswer(`<p class="big" id="los-result">${clear ? t("los.yes") : t("los.no")}${blockers.length ? ` (${t("blocked_by")} ${esc(blockers.join(", "))})` : ""}${frac}</p>`, ans);
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
    S.layers.firezone = []; S.layers.numbers = [];
    if (!f || !tg || f === tg) { renderAll(); return; }
    const ans = await ask("firezone", [f, tg]);
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
    showAnswer(`<p class="big" id="firezone-result">${t("in_zone")} : ${esc(order.map((x) => (typeof x === "string" ? x : x.model || x.id)).join(", ") || t("nothing"))}</p>` +
      (band !== null ? `<p id="firezone-band">${esc(band)}</p>` : ""), ans);
    renderAll();
  }

  async function rangeBands(quiet) {
    const m = $("#rg-model").value, raw = $("#rg-range").value.trim();
    if (!m) return;
    const body = { model: m };
    if (raw !== "") body.weapon_range = parseFloat(raw);
    const ans = await api("POST", "api/bands", body);
    const c = ans.centre_mm, shapes = [];
    ans.bands.forEach((b, i) => {
      const inner = b.from_mm, outer = b.to_mm;
      if (outer !== null) shapes.push({ kind: "circle", c, r: outer, cls: `range-band band-${i % 4}` });
      const at = outer !== null ? (inner + outer) / 2 : inner + 20;
      shapes.push({ kind: "text", at: [c[0], c[1] - at], text: bandText(b.band), cls: "band-label", size: 0.6 });
    });
    S.layers.range = shapes;
    if (quiet !== true) $("#answer").innerHTML = `<p class="big" id="bands-result">${esc(ans.bands.map((b) => `${bandText(b.band)}${b.to_mm !== null ? ` < ${unitFmt(b.to_mm)}` : ""}`).join(" · "))}</p>`;
    renderAll();
  }

  async function template(at, quiet) {
    const r = parseFloat($("#tp-radius").value) * S.game.unit.mm;
    if (!(r > 0)) throw new Error(t("label.radius"));
    const ans = await ask("template", [at[0].toFixed(1), at[1].toFixed(1), r.toFixed(1)]);
    const under = (ans.models || ans.under || []).map((x) => (typeof x === "string" ? x : x.model || x.id));
    S.highlight = new Set(under);
    S.layers.template = [{ kind: "circle", c: at, r: ans.radius_mm || r, cls: "template" }];
    if (quiet !== true) showAnswer(`<p class="big">${t("under_template")} : ${esc(under.join(", ") || t("nothing"))}</p>`, ans);
  }

  async function auras() {
    S.layers.auras = [];
    if (!has("aura")) return;
    const leaders = (S.game.game.models || []).filter((m) => m.role).map((m) => m.id);
    for (const id of leaders) {
      try {
        const a = await ask("aura", [id]);
        (a.auras || a.bubbles || (a.radius_mm ? [a] : [])).forEach((b) => {
          const r = num(b.radius_mm !== undefined ? b.radius_mm : b.radius);
          if (r) S.layers.auras.push({ kind: "circle", c: centre(id), r: r + modelById(id).base_mm / 2, cls: "aura" });
        });
      } catch (e) { /* no aura for this model */ }
    }
  }

  async function objectives() {
    S.layers.objectives = [];
    (S.game.game.objectives || []).forEach((o) => S.layers.objectives.push({ kind: "circle", c: [o.x_mm, o.y_mm], r: 10, cls: "objective" }));
    if (!(S.game.game.objectives || []).length || !has("objectives")) return;
    try {
      const a = await ask("objectives", []);
      (a.objectives || []).forEach((o) => {
        const obj = (S.game.game.objectives || []).find((x) => x.id === (o.objective || o.id));
        if (!obj) return;
        const side = o.controller || (o.contested ? "contested" : null);
        const r = num(o.reach_mm !== undefined ? o.reach_mm : a.reach_mm) || 0;
        if (r) S.layers.objectives.push({ kind: "circle", c: [obj.x_mm, obj.y_mm], r, cls: `objective-zone${side ? "" : " contested"}` });
        S.layers.objectives.push({ kind: "text", at: [obj.x_mm, obj.y_mm + 25], text: `${obj.id}: ${side || "—"}`, cls: "objective-label", size: 0.8 });
      });
    } catch (e) { /* rule set without objectives */ }
  }

  async function deployment() {
    S.layers.deployment = [];
    const a = await api("GET", "api/zones");
    a.deployment.forEach((z) => {
      S.layers.deployment.push({ kind: "poly", pts: z.points_mm, cls: "deployment" });
      const c = z.points_mm.reduce((acc, p) => [acc[0] + p[0] / z.points_mm.length, acc[1] + p[1] / z.points_mm.length], [0, 0]);
      S.layers.deployment.push({ kind: "text", at: c, text: `${z.side} (${z.depth}${z.unit})`, cls: "deployment-label", size: 0.8 });
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
  async function onViewClick(ev, isPlan) {
    const target = ev.target.closest("[data-model]");
    const modelId = target ? target.dataset.model : null;
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
      $("#rg-model").value = modelId;
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
    ["#fz-firing", "#fz-target", "#rs-unit", "#rs-target"].forEach((s) => fillSelect($(s), units, true));
    fillSelect($("#rg-model"), (g.models || []).map((m) => [m.id, m.name || m.id]), true);
    const weapons = new Set(Object.keys(g.weapons || {}));
    (g.models || []).forEach((m) => (m.weapons || []).forEach((w) => weapons.add(w)));
    fillSelect($("#rs-weapon"), Array.from(weapons).sort().map((w) => [w, w]), true);
    fillSelect($("#rs-action"), S.actions.map((a) => [a, a]), false);
    fillSelect($("#su-ruleset"), (S.server.rulesets || []).map((r) => [r, r]), false);
    // set-up fields follow the game only when the game's values change, never over what a player is typing
    const setup = JSON.stringify([g.ruleset, g.table]);
    if (S.filledSetup !== setup) {
      S.filledSetup = setup;
      $("#su-ruleset").value = g.ruleset;
      $("#su-width").value = g.table.width_mm;
      $("#su-depth").value = g.table.depth_mm;
    }
    fillSelect($("#tr-kind"), S.terrainKinds.map((k) => [k.kind, k.kind]), false);
    const list = $("#tr-list");
    list.replaceChildren();
    [...(g.terrain || []).map((x) => ["terrain", x.id, `${x.id} · ${x.kind} (${t(`shape.${x.shape}`)})`]),
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
    const rows = [...((S.live && S.live.models) || []).map((m) => ({ key: "marker_id", id: m.marker_id, label: `${t("marker")} #${m.marker_id}`, current: byMarker[m.marker_id] })),
      ...((S.live && S.live.bases) || []).map((b) => ({ key: "base_id", id: b.base_id, label: `${t("base")} ${b.base_id} (${b.side || "?"}, ${b.diameter_mm} mm)`,
        current: ((S.game.game.models || []).find((m) => m.extra && m.extra.base_track === b.base_id) || {}).id }))];
    const sig = JSON.stringify([rows, models, S.lang]);
    if (sig === S.detectedSig) return;
    S.detectedSig = sig;
    ul.replaceChildren();
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
    const data = await api("GET", "api/log?limit=200");
    S.logEvents = data.events;
    renderLog(data.events);
  }
  function logText(e) {
    const p = { ...e.payload };
    if (e.kind === "placed") p.models = (p.models || []).map((m) => m.model);
    if (e.kind === "move" || e.kind === "place") p.model = p.name || p.model;
    const key = `log.${e.kind}`;
    const text = t(key, p);
    return text === key ? e.kind : text;
  }
  function renderLog(events) {
    const ol = $("#log");
    ol.replaceChildren();
    events.slice().reverse().forEach((e) => {
      const li = document.createElement("li");
      li.className = `log-${e.kind.replace(/\./g, "-")}${e.undone ? " undone" : ""}`;
      const time = new Date(e.at_s * 1000).toLocaleTimeString(S.lang);
      li.textContent = `${time} · ${t(`actor.${e.actor}`)} · ${logText(e)}${e.undone ? ` (${t("undone")})` : ""}`;
      li.value = e.id;
      ol.appendChild(li);
    });
  }

  // -- resolution ------------------------------------------------------------------------------
  function resolutionRequest() {
    // The rules core names the two units after the action (shoot: firing/target, melee: attacker/defender).
    const action = $("#rs-action").value;
    const names = { shoot: ["firing", "target"], melee: ["attacker", "defender"] }[action] || ["unit", "target"];
    const req = {};
    const u = $("#rs-unit").value, tg = $("#rs-target").value, w = $("#rs-weapon").value;
    if (u) req[names[0]] = u;
    if (tg) req[names[1]] = tg;
    if (w) req.weapon = w;
    const extra = $("#rs-extra").value.trim();
    if (extra) {
      let parsed;
      try { parsed = JSON.parse(extra); } catch (e) { throw new Error(`${t("label.extra")}: JSON`); }
      Object.assign(req, parsed);
    }
    return { action: $("#rs-action").value, request: req };
  }
  function oddsHtml(odds) {
    return Object.entries(odds || {}).map(([name, dist]) => `<table class="odds"><caption>${esc(ruleWord(name))}</caption>${
      (Array.isArray(dist) ? dist : []).map((row) => `<tr><td>${esc(fmtValue(row.outcome))}</td><td>${(100 * (row.p !== undefined ? row.p : row.probability || 0)).toFixed(1)} %</td></tr>`).join("")}</table>`).join("");
  }
  function showResolution(res) {
    const needed = Object.entries(res.needed || {}).map(([k, v]) => `${esc(ruleWord(k))} : <b>${esc(v)}</b>`).join(" · ");
    let html = needed ? `<p>${t("needed")} ${needed}</p>` : "";
    html += explanationHtml(res) + `<details ${res.result ? "" : "open"}><summary>${t("odds")}</summary>${oddsHtml(res.odds)}</details>`;
    if (res.result) {
      html += `<p>${t("dice")} : <b id="rolled-dice">${(res.dice || []).map((d) => d.value).join(", ")}</b></p>`;
      html += `<pre class="result">${esc(JSON.stringify(res.result, null, 1))}</pre>`;
    }
    $("#resolution").innerHTML = html;
  }
  async function resolveWith(extra) {
    const body = { ...resolutionRequest(), ...extra };
    const res = await api("POST", "api/resolve", body);
    S.resolution = res;
    S.lastRoll = res.result ? { ...resolutionRequest(), dice: (res.dice || []).map((d) => d.value) } : null;
    $("#rs-apply").disabled = !(S.lastRoll && res.game);
    showResolution(res);
  }

  // -- wiring ----------------------------------------------------------------------------------
  function wire() {
    $$(".lang-switch button").forEach((b) => b.addEventListener("click", () => { S.lang = b.dataset.lang; localStorage.setItem("tt_lang", S.lang); applyLang(); }));
    $$(".views-switch button").forEach((b) => b.addEventListener("click", () => {
      $("#views").dataset.view = b.dataset.view;
      $$(".views-switch button").forEach((x) => x.classList.toggle("on", x === b));
    }));
    $$(".tabs button").forEach((b) => b.addEventListener("click", () => {
      $$(".tabs button").forEach((x) => x.classList.toggle("on", x === b));
      $$(".tab").forEach((x) => { x.hidden = x.id !== `tab-${b.dataset.tab}`; });
    }));
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
      return resolveWith({ dice });
    }));
    $("#rs-apply").addEventListener("click", guard(async () => {
      if (!S.lastRoll) return;
      await api("POST", "api/resolve/apply", S.lastRoll);
      $("#rs-apply").disabled = true; S.lastRoll = null;
    }));
    $("#su-apply").addEventListener("click", guard(async () => {
      const g = S.game.game, rs = $("#su-ruleset").value;
      if (rs !== g.ruleset) await api("POST", "api/setup/ruleset", { ruleset: rs });
      const w = parseFloat($("#su-width").value), d = parseFloat($("#su-depth").value);
      if (w !== g.table.width_mm || d !== g.table.depth_mm) await api("POST", "api/setup/table", { width_mm: w, depth_mm: d });
      await loadState();
    }));
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

  async function loadState() {
    const st = await api("GET", "api/state");
    S.server = st.server; S.actions = st.actions; S.questions = st.questions; S.terrainKinds = st.terrain_kinds;
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
    loadState().then(connect).catch(showError);
  });
})();
