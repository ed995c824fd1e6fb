// Action forms built from a description of the action's arguments (no typed JSON).
// A description (server/pages.py, from the rules core's): {action, label, described, args: [{name,
// kind, label, required, values, values_by, enemy_of, of, min, max, integer, default, help}]} where
// kind is unit | model | figure | weapon | number | choice | models | units.
// window.TT_FORMS.render(container, description, ctx) draws the pickers; .read(container)
// returns the request object. ctx gives the words and the game: {t, game, label(kind, id)}.
"use strict";
window.TT_FORMS = (() => {
  function sideOf(game, kind, id) {
    if (!id) return null;
    const unitId = kind === "model" ? ((game.models || []).find((m) => m.id === id) || {}).unit : id;
    return ((game.units || []).find((u) => u.id === unitId) || {}).side || null;
  }
  function weaponsOf(game, kind, id) {
    const models = (game.models || []).filter((m) => (kind === "model" ? m.id === id : m.unit === id));
    return Array.from(new Set(models.flatMap((m) => m.weapons || []))).sort();
  }
  function option(sel, value, text) {
    const o = document.createElement("option");
    o.value = value === null || value === undefined ? "" : String(value);
    o.textContent = text;
    sel.appendChild(o);
  }
  function choicesFor(arg, desc, values, ctx) {
    const g = ctx.game;
    const byName = Object.fromEntries(desc.args.map((a) => [a.name, a]));
    if (arg.kind === "models" || arg.kind === "units") {
      const one = arg.kind === "models" ? "model" : "unit";
      return choicesFor({ ...arg, kind: one }, desc, values, ctx);
    }
    if (arg.kind === "unit" || arg.kind === "model") {
      const present = arg.kind === "unit" ? (g.units || []).map((u) => u.id) : (g.models || []).map((m) => m.id);
      let ids = arg.values ? arg.values.filter((id) => present.includes(id)) : present;  // never a removed model
      if (arg.enemy_of && values[arg.enemy_of]) {
        const own = sideOf(g, byName[arg.enemy_of].kind, values[arg.enemy_of]);
        ids = ids.filter((id) => sideOf(g, arg.kind, id) !== own);
      }
      return ids.map((id) => [id, ctx.label(arg.kind, id)]);
    }
    if (arg.kind === "weapon") {
      const of = byName[arg.of];
      const carrier = of ? values[of.name] : undefined;
      const ws = arg.values || (carrier && arg.values_by ? arg.values_by[carrier] || []
        : (carrier ? weaponsOf(g, of.kind, carrier) : []));
      return ws.map((w) => [w, w]);
    }
    if (arg.kind === "figure") return (arg.values || Object.keys(g.profiles || {})).map((p) => [p, p]);
    if (arg.kind === "choice") return (arg.values || []).map((v) => [v, ctx.t(`choice.${v}`) === `choice.${v}` ? String(v) : ctx.t(`choice.${v}`)]);
    return [];
  }
  // Draw (or redraw, keeping what the player chose when still legal) the form of ``desc``.
  function render(container, desc, ctx) {
    const before = container.dataset.action === desc.action ? read(container, true) : {};
    const opened = container.querySelector("details.more-args");
    if (opened && opened.open) before.__more_open = true;
    container.replaceChildren();
    container.dataset.action = desc.action;
    const values = { ...before };
    // the optional details (order of casualties, luck, moved...) folded under one line, so the
    // shot's preview stays in sight; who acts, the target and the weapon stay open
    let more = null;
    const holder = (arg) => {
      if (arg.required || ["weapon", "unit", "model"].includes(arg.kind)) return container;
      if (!more) {
        more = document.createElement("details");
        more.className = "more-args";
        const sum = document.createElement("summary");
        sum.textContent = ctx.t("more_options");
        more.appendChild(sum);
        if (before.__more_open) more.open = true;
      }
      return more;
    };
    desc.args.forEach((arg) => {
      const label = document.createElement("label");
      label.className = `arg arg-${arg.kind}`;
      const span = document.createElement("span");
      const word = ctx.t(arg.label);
      span.textContent = (word === arg.label ? (arg.help || arg.name) : word) + (arg.required ? "" : ` (${ctx.t("optional")})`);
      label.appendChild(span);
      label.append(" ");
      let input;
      if (arg.kind === "number") {
        input = document.createElement("input");
        input.type = "number"; input.inputMode = arg.integer === false ? "decimal" : "numeric";
        if (arg.integer === false) input.step = "any";
        if (arg.min !== undefined) input.min = arg.min;
        if (arg.max !== undefined) input.max = arg.max;
        if (values[arg.name] !== undefined) input.value = values[arg.name];
      } else if (arg.kind === "models" || arg.kind === "units") {
        input = document.createElement("select");
        input.multiple = true;
        input.size = 3;
        const choices = choicesFor(arg, desc, values, ctx);
        const had = [].concat(values[arg.name] || []);
        choices.forEach(([v, text]) => option(input, v, text));
        Array.from(input.options).forEach((o) => { o.selected = had.includes(o.value); });
      } else {
        input = document.createElement("select");
        const choices = choicesFor(arg, desc, values, ctx);
        if (!arg.required || arg.kind !== "choice") option(input, "", arg.required ? ctx.t("choose") : ctx.t("none"));
        choices.forEach(([v, text]) => option(input, v, text));
        const want = values[arg.name] !== undefined ? values[arg.name] : arg.default;
        if (want !== undefined && choices.some(([v]) => String(v) === String(want))) input.value = String(want);
        values[arg.name] = input.value === "" ? undefined : input.value;
        input.addEventListener("change", () => { values[arg.name] = input.value; render(container, desc, ctx); if (ctx.onChange) ctx.onChange(); });
      }
      input.dataset.arg = arg.name;
      input.dataset.kind = arg.kind;
      input.id = `arg-${arg.name}`;
      label.appendChild(input);
      holder(arg).appendChild(label);
    });
    if (more) container.appendChild(more);
    if (!desc.described) {
      const p = document.createElement("p");
      p.className = "hint";
      p.textContent = ctx.t("hint.form_not_described");
      container.appendChild(p);
    }
  }
  // The request the form describes: empty fields left out, numbers and yes/no as JSON values.
  function read(container, raw) {
    const req = {};
    container.querySelectorAll("[data-arg]").forEach((input) => {
      if (input.multiple) {
        const picked = Array.from(input.selectedOptions).map((o) => o.value);
        if (picked.length) req[input.dataset.arg] = picked;
        return;
      }
      const v = input.value;
      if (v === "") return;
      if (raw) { req[input.dataset.arg] = v; return; }
      if (input.dataset.kind === "number") req[input.dataset.arg] = Number(v);
      else if (v === "true" || v === "false") req[input.dataset.arg] = v === "true";
      else req[input.dataset.arg] = v;
    });
    return req;
  }
  return { render, read };
})();
