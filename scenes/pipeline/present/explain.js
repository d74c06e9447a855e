// Where a number of a paused frame comes from. Shared by the pages that show a clip's frame (the
// presenter page inlines it; the lab's still can include it the same way), in the page's colours
// (its CSS custom properties, present/colours.py):
//   Explain.attach(host, media, data, words)  outline-able boxes over the picture of `media` (a
//       <video> or <img>, object-fit: contain) inside `host`; data is one step's record written by
//       scenes/pipeline/present/explain.py: {frame: [W, H], items: [[x0, y0, x1, y1, note, label]],
//       notes: [{lines, lit, earlier}]}; words: {title, lit, close}
//   Explain.detach()  Explain.close()  Explain.isOpen()  Explain.state()
// Hovering a number outlines it; a click shows its note and outlines its sources in the frame; Esc
// (the page's key handler calls close), a second click, or a click elsewhere on the frame closes
// it. Every word and every number shown here comes from `data`: this file only displays.
(function () {
  "use strict";
  let layer = null, panel = null, boxes = [], shown = null, args = null;

  const CSS = `
    .explain-layer { position: absolute; z-index: 5; }
    .explain-layer .num { position: absolute; cursor: pointer; border-radius: 3px; }
    .explain-layer .num::before { content: ""; position: absolute; inset: -4px; }
    .explain-layer .num:hover { outline: 2px solid color-mix(in srgb, var(--track) 90%, transparent); outline-offset: 2px; }
    .explain-layer .num.lit { outline: 3px solid var(--query); outline-offset: 2px;
      background: color-mix(in srgb, var(--query) 12%, transparent); }
    .explain-layer .num.chosen { outline: 3px solid var(--track); outline-offset: 2px; }
    .explain-panel { position: absolute; z-index: 6; max-width: 42%; background: color-mix(in srgb, var(--background) 94%, transparent);
      color: var(--text); border: 1px solid var(--query); border-radius: 8px; padding: 12px 16px; font-size: 17px;
      line-height: 1.45; font-family: "Noto Sans CJK SC", "Noto Sans", sans-serif; pointer-events: none; }
    .explain-panel h4 { margin: 0 0 6px 0; font-size: 14px; color: var(--muted); font-weight: normal; }
    .explain-panel .line { white-space: pre-wrap; overflow-wrap: anywhere; }
    .explain-panel .earlier { color: var(--soft); font-size: 15px; }
    .explain-panel .hint { color: var(--muted); font-size: 12px; margin-top: 8px; }`;

  function style() {
    if (document.getElementById("explain-style")) return;
    const s = document.createElement("style");
    s.id = "explain-style";
    s.textContent = CSS;
    document.head.appendChild(s);
  }

  function picture(host, media) {
    // the picture's rectangle inside the host: object-fit: contain keeps its aspect
    const h = host.getBoundingClientRect(), r = media.getBoundingClientRect();
    const w = media.videoWidth || media.naturalWidth || r.width, ht = media.videoHeight || media.naturalHeight || r.height;
    const s = Math.min(r.width / w, r.height / ht);
    return { left: r.left - h.left + (r.width - w * s) / 2, top: r.top - h.top + (r.height - ht * s) / 2,
             width: w * s, height: ht * s };
  }

  function line(text, cls) {
    const d = document.createElement("div");
    d.className = cls;
    d.textContent = text;
    return d;
  }

  function open(k) {
    close();
    const { data, words } = args, note = data.notes[k];
    shown = k;
    boxes.forEach((b, i) => {
      if (data.items[i][4] === k) b.classList.add("chosen");
      if (note.lit.includes(i)) b.classList.add("lit");
    });
    panel = document.createElement("div");
    panel.className = "explain-panel";
    const head = document.createElement("h4");
    head.textContent = words.title;
    panel.appendChild(head);
    note.lines.forEach(t => panel.appendChild(line(t, "line")));
    note.earlier.forEach(t => panel.appendChild(line(t, "line earlier")));
    panel.appendChild(line((note.lit.length ? words.lit + " · " : "") + words.close, "hint"));
    const first = data.items.find(it => it[4] === k);
    const right = first && (first[0] + first[2]) / 2 < 0;     // the side away from the number
    const frame = layer.getBoundingClientRect(), host = args.host.getBoundingClientRect();
    panel.style.top = (frame.top - host.top + 12) + "px";
    if (right) panel.style.right = (host.right - frame.right + 12) + "px";
    else panel.style.left = (frame.left - host.left + 12) + "px";
    args.host.appendChild(panel);
    document.body.classList.add("explaining");          // the page may hide what the note would cover
  }

  function close() {
    boxes.forEach(b => b.classList.remove("lit", "chosen"));
    if (panel) panel.remove();
    document.body.classList.remove("explaining");
    panel = null;
    shown = null;
  }

  function place() {
    if (!layer) return;
    const r = picture(args.host, args.media);
    Object.assign(layer.style, { left: r.left + "px", top: r.top + "px", width: r.width + "px", height: r.height + "px" });
  }

  function attach(host, media, data, words) {
    detach();
    if (!data || !data.items || !data.items.length) return;
    style();
    args = { host, media, data, words };
    layer = document.createElement("div");
    layer.className = "explain-layer";
    const [W, H] = data.frame;
    boxes = data.items.map((it, i) => {
      const b = document.createElement("div");
      b.className = "num";
      b.dataset.item = i;
      Object.assign(b.style, { left: (100 * (it[0] + W / 2) / W) + "%", top: (100 * (H / 2 - it[3]) / H) + "%",
                               width: (100 * (it[2] - it[0]) / W) + "%", height: (100 * (it[3] - it[1]) / H) + "%" });
      layer.appendChild(b);
      return b;
    });
    layer.addEventListener("click", e => {
      const b = e.target.closest(".num");
      if (!b && shown === null) return;              // a click beside the numbers: the page's own
      e.stopPropagation();
      const k = b ? data.items[+b.dataset.item][4] : null;
      if (k === null || k === shown) close(); else open(k);
    });
    host.appendChild(layer);
    place();
    window.addEventListener("resize", place);
  }

  function detach() {
    close();
    if (layer) layer.remove();
    window.removeEventListener("resize", place);
    layer = null;
    boxes = [];
    args = null;
  }

  function state() {
    const rect = el => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    return { attached: !!layer, open: shown, picture: layer ? rect(layer) : null,
             lit: boxes.filter(b => b.classList.contains("lit")).map(rect),
             chosen: boxes.filter(b => b.classList.contains("chosen")).map(rect),
             text: panel ? panel.innerText : "" };
  }

  window.Explain = { attach, detach, close, isOpen: () => shown !== null, state };
})();
