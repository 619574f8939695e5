// The latchkey console page. Everything the server sends is untrusted text (lock names and owners are chosen by
// whoever took the lock): it is only ever set with textContent or as SVG attributes of numbers, never as HTML.
'use strict';
(function () {
  const UNLOCKABLE = new Set(['lock', 'fair-lock', 'write-lock', 'election']);
  const SVG = 'http://www.w3.org/2000/svg';
  const csrf = document.querySelector('meta[name="latchkey-csrf"]').getAttribute('content');
  const $ = (id) => document.getElementById(id);
  let state = null;
  let offset = 0; // server clock minus this browser's clock
  let pending = null; // the hold the confirmation dialog is about

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, String(attrs[k]));
    if (text !== undefined) e.textContent = String(text);
    return e;
  }

  function now() { return Date.now() + offset; }

  function duration(ms) {
    if (ms === null || ms === undefined) return '-';
    if (ms < 1000) return ms + ' ms';
    const s = Math.floor(ms / 1000);
    if (s < 60) return (ms / 1000).toFixed(1) + ' s';
    const m = Math.floor(s / 60);
    if (m < 60) return m + ' m ' + (s % 60) + ' s';
    return Math.floor(m / 60) + ' h ' + (m % 60) + ' m';
  }

  function clock(ms) {
    const d = new Date(ms);
    return d.toLocaleTimeString([], { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0');
  }

  function hue(s) {
    let h = 0;
    for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
    return Math.abs(h) % 360;
  }

  // The client part of an owner (<clientId>:<thread or lease id>): bars of one client share a color.
  function clientOf(owner) {
    const i = owner.lastIndexOf(':');
    return i > 0 ? owner.slice(0, i) : owner;
  }

  function matches(h, f) {
    if (!f) return true;
    return [h.name, h.owner, h.client || '', h.kind].some((v) => v.toLowerCase().includes(f));
  }

  function filterText() { return $('filter').value.trim().toLowerCase(); }

  function holderText(h) { return h.owner === '-' ? '-' : h.owner; }

  // ---- held now ----
  // Rows are kept per hold and updated in place, so that a button under the pointer survives the refreshes.
  const rows = new Map();

  function holdRow(h) {
    let tr = rows.get(h.key);
    if (!tr) {
      tr = el('tr');
      tr.dataset.name = h.name;
      tr.appendChild(el('td', h.name, 'name'));
      const kind = el('td');
      kind.appendChild(el('span', h.kind, 'kind'));
      tr.appendChild(kind);
      ['owner', 'client', 'num token', 'since', 'num held', 'num lease', 'num waiters', 'muted detail']
        .forEach((cls) => tr.appendChild(el('td', null, cls)));
      const act = el('td');
      if (UNLOCKABLE.has(h.kind) && h.owner !== '-') {
        const b = el('button', 'Force-unlock', 'danger');
        b.addEventListener('click', () => confirmUnlock(tr.hold));
        act.appendChild(b);
      }
      tr.appendChild(act);
      rows.set(h.key, tr);
    }
    tr.hold = h;
    return tr;
  }

  function renderHolds() {
    const f = filterText();
    const t = now();
    const holds = state.holds.filter((h) => matches(h, f)).sort((a, b) => a.start - b.start);
    const body = $('holds').tBodies[0];
    const keep = new Set(holds.map((h) => h.key));
    for (const [key, tr] of rows) {
      if (!keep.has(key)) { tr.remove(); rows.delete(key); }
    }
    holds.forEach((h, i) => {
      const tr = holdRow(h);
      const c = tr.children;
      c[2].textContent = holderText(h) + (h.holdCount > 1 ? ' ×' + h.holdCount : '');
      c[3].textContent = h.client === null ? '—' : h.client;
      c[4].textContent = h.token === null ? '-' : String(h.token);
      c[5].textContent = (h.sinceKnown ? '' : '≥ ') + clock(h.start);
      c[5].className = h.sinceKnown ? 'since' : 'since muted';
      c[5].title = h.sinceKnown ? 'held since (as the backend records it)' : 'first seen by this console';
      c[6].textContent = duration(Math.max(0, t - h.start));
      const lease = c[7];
      if (h.leaseMs === null) {
        lease.textContent = '-';
      } else {
        lease.textContent = duration(Math.max(0, h.leaseMs - (t - state.now)));
        if (h.renews) lease.appendChild(el('div', '↻ renews', 'renews'));
      }
      c[8].textContent = h.waiters === null ? '-' : String(h.waiters);
      c[9].textContent = h.detail || '';
      if (body.children[i] !== tr) body.insertBefore(tr, body.children[i] || null); // into sorted place
    });
    $('count').textContent = '(' + holds.length + (holds.length === state.holds.length ? '' : ' of ' + state.holds.length) + ')';
    $('empty').hidden = holds.length > 0;
  }

  // ---- longest holds, most contended, timeline ----
  function byName(windowStart) {
    const names = new Map();
    const all = state.holds.concat(state.ended);
    for (const h of all) {
      const end = h.end === null ? now() : h.end;
      if (end < windowStart) continue;
      let n = names.get(h.name);
      if (!n) { n = { name: h.name, bars: [], longest: 0, holders: new Set(), waiters: 0, open: false }; names.set(h.name, n); }
      n.bars.push(h);
      n.longest = Math.max(n.longest, end - h.start);
      n.holders.add(h.owner + '/' + h.token);
      n.waiters = Math.max(n.waiters, h.maxWaiters || 0);
      n.open = n.open || h.end === null;
    }
    return Array.from(names.values());
  }

  function renderCards(names) {
    const longest = $('longest');
    longest.replaceChildren();
    const t = now();
    state.holds.slice().sort((a, b) => a.start - b.start).slice(0, 5).forEach((h) => {
      const li = el('li');
      li.appendChild(el('span', h.name, 'name'));
      li.appendChild(el('span', ' — ' + duration(Math.max(0, t - h.start)) + ' by ' + (h.client || holderText(h)), 'muted'));
      longest.appendChild(li);
    });
    if (!longest.children.length) longest.appendChild(el('li', 'nothing held', 'muted'));
    const contended = $('contended');
    contended.replaceChildren();
    names.filter((n) => n.waiters > 0 || n.holders.size > 1)
      .sort((a, b) => (b.waiters - a.waiters) || (b.holders.size - a.holders.size)).slice(0, 5).forEach((n) => {
        const li = el('li');
        li.appendChild(el('span', n.name, 'name'));
        li.appendChild(el('span', ' — ' + (n.waiters > 0 ? 'up to ' + n.waiters + ' waiting, ' : '')
          + n.holders.size + ' hold' + (n.holders.size === 1 ? '' : 's') + ' in the window', 'muted'));
        contended.appendChild(li);
      });
    if (!contended.children.length) contended.appendChild(el('li', 'no waiters or handovers seen', 'muted'));
  }

  // The timeline spans what this console saw: from the oldest bar still in its window (at least 20 s, at most
  // five minutes), so that a console started a moment ago shows its bars wide enough to read.
  function timelineSpan() {
    const t = now();
    let oldest = t;
    for (const h of state.holds.concat(state.ended)) oldest = Math.min(oldest, h.start);
    const max = Math.min(state.windowMs, 5 * 60 * 1000);
    return Math.max(20 * 1000, Math.min(max, (t - oldest) * 1.1));
  }

  function tickStep(span) {
    for (const s of [5, 10, 15, 30, 60, 120, 300]) if (span / (s * 1000) <= 8) return s * 1000;
    return 600 * 1000;
  }

  function ago(ms) {
    return ms >= 60000 ? '-' + (ms / 60000) + ' min' : '-' + (ms / 1000) + ' s';
  }

  function renderTimeline(names) {
    const f = filterText();
    const t = now();
    const windowMs = timelineSpan();
    const start = t - windowMs;
    const rows = names.filter((n) => !f || n.name.toLowerCase().includes(f) || n.bars.some((b) => matches(b, f)))
      .sort((a, b) => (b.longest - a.longest) || (b.waiters - a.waiters) || (b.holders.size - a.holders.size))
      .slice(0, 40);
    $('window').textContent = 'last ' + duration(Math.round(windowMs / 1000) * 1000)
      + ' as this console saw it; longest holds first';
    const box = $('timeline');
    const width = Math.max(600, box.clientWidth || 900);
    const label = 220;
    const rowH = 22;
    const top = 20;
    const height = top + rows.length * rowH + 6;
    const x = (ms) => label + (Math.max(start, Math.min(t, ms)) - start) / windowMs * (width - label - 10);
    const root = svg('svg', { width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, role: 'img' });
    root.appendChild(svg('title', {}, 'Timeline of holds'));
    const axis = svg('g', { class: 'axis' });
    const step = tickStep(windowMs);
    for (let m = 0; m * step <= windowMs; m++) {
      const xm = x(t - m * step);
      axis.appendChild(svg('line', { x1: xm, x2: xm, y1: 14, y2: height, class: 'grid' }));
      axis.appendChild(svg('text', { x: xm, y: 11, 'text-anchor': m === 0 ? 'end' : 'middle' }, m === 0 ? 'now' : ago(m * step)));
    }
    root.appendChild(axis);
    rows.forEach((n, i) => {
      const y = top + i * rowH;
      const g = svg('g', { class: 'tl-row' });
      g.setAttribute('data-name', n.name);
      const name = n.name.length > 28 ? n.name.slice(0, 27) + '…' : n.name;
      const text = svg('text', { x: 0, y: y + 15 }, name);
      text.appendChild(svg('title', {}, n.name));
      g.appendChild(text);
      for (const b of n.bars) {
        const x1 = x(b.start);
        const x2 = Math.max(x1 + 2, x(b.end === null ? t : b.end));
        const rect = svg('rect', {
          x: x1, y: y + 3, width: x2 - x1, height: rowH - 6, rx: 2,
          fill: 'hsl(' + hue(b.client || clientOf(b.owner)) + ', 65%, ' + (b.end === null ? '45%' : '70%') + ')',
          class: 'tl-bar ' + (b.end === null ? 'open' : 'ended ' + b.endReason)
        });
        rect.appendChild(svg('title', {}, b.name + '\nholder ' + holderText(b) + (b.client ? '\nclient ' + b.client : '')
          + '\ntoken ' + (b.token === null ? '-' : b.token) + '\nfrom ' + clock(b.start)
          + (b.end === null ? ', held now (' : '\nto ' + clock(b.end) + ', ' + b.endReason + ' (')
          + duration((b.end === null ? t : b.end) - b.start) + ')'));
        g.appendChild(rect);
        if (b.end !== null && (b.endReason === 'force-unlocked' || b.endReason === 'expired')) {
          g.appendChild(svg('line', { x1: x2, x2: x2, y1: y + 1, y2: y + rowH - 1,
            class: b.endReason === 'expired' ? 'end-expired' : 'end-forced' }));
        }
      }
      root.appendChild(g);
    });
    if (!rows.length) root.appendChild(svg('text', { x: label, y: top + 14, class: 'muted' }, 'no holds seen yet'));
    box.replaceChildren(root);
  }

  // ---- audit log ----
  function renderAudit() {
    const body = $('audit').tBodies[0];
    body.replaceChildren();
    for (const a of state.audit) {
      const tr = el('tr');
      [new Date(a.at).toISOString(), a.who, a.remote, a.lock, a.token, a.holder, a.outcome]
        .forEach((v, i) => tr.appendChild(el('td', v, i === 3 ? 'name' : i === 5 ? 'owner' : '')));
      body.appendChild(tr);
    }
    $('audit-empty').hidden = state.audit.length > 0;
  }

  function render() {
    if (!state) return;
    $('backend').textContent = state.backend + (state.pattern === '*' ? '' : ' — ' + state.pattern);
    const err = $('error');
    err.hidden = !state.error;
    err.textContent = state.error || '';
    const names = byName(now() - timelineSpan());
    renderHolds();
    renderCards(names);
    renderTimeline(names);
    renderAudit();
  }

  // ---- force-unlock ----
  function confirmUnlock(h) {
    pending = h;
    $('c-name').textContent = h.name + (h.kind === 'lock' ? '' : ' (' + h.kind + ')');
    $('c-owner').textContent = holderText(h);
    $('c-client').textContent = h.client === null ? '—' : h.client;
    $('c-token').textContent = h.token === null ? '-' : String(h.token);
    $('confirm').showModal();
  }

  function toast(message, bad) {
    const t = $('toast');
    t.textContent = message;
    t.className = bad ? 'bad' : '';
    t.hidden = false;
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => { t.hidden = true; }, 6000);
  }

  async function unlock(h) {
    const body = new URLSearchParams({ name: h.name, kind: h.kind, owner: h.owner, token: h.token === null ? '' : String(h.token) });
    try {
      const headers = { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Latchkey-Csrf': csrf };
      // what the application's own protection asks of a change (its CSRF token), when the page is served by one
      document.querySelectorAll('meta[name="latchkey-header"]').forEach(m => {
        headers[m.getAttribute('content')] = m.getAttribute('data-value');
      });
      const r = await fetch('api/unlock', {
        method: 'POST', credentials: 'same-origin', headers: headers, body: body
      });
      const type = r.headers.get('Content-Type') || '';
      if (type.startsWith('application/json')) {
        const answer = await r.json();
        toast(answer.message, !answer.ok);
      } else {
        toast('force-unlock refused by the server: HTTP ' + r.status, true);
      }
    } catch (e) {
      toast('force-unlock failed: ' + e, true);
    }
  }

  $('confirm').addEventListener('close', () => {
    const h = pending;
    pending = null;
    if (h && $('confirm').returnValue === 'ok') unlock(h);
  });

  $('filter').addEventListener('input', render);

  // ---- live state ----
  function connect() {
    const source = new EventSource('events');
    source.addEventListener('state', (e) => {
      state = JSON.parse(e.data);
      offset = state.now - Date.now();
      $('status').textContent = 'live';
      $('status').className = 'status live';
      render();
    });
    source.onerror = () => {
      $('status').textContent = 'reconnecting…';
      $('status').className = 'status down';
    };
  }
  connect();
  setInterval(render, 1000);
})();
