// The control room's page: it reads state every second and shows each
// live session, its live picture streamed. Everything a page or the model wrote is set as text, never
// as markup. Every URL is relative: the sidecar serves a tenant's room
// under its own path.
'use strict';

let csrf = '';
const shown = new Map(); // page id → {key, section, img}
// The pages a person holds (browser_handoff), and the one they drive: the
// one whose picture they clicked last. Their keys go to it, in order.
const held = new Set();
let driving = '';
let sent = Promise.resolve();
const namedKeys = new Set(['Enter', 'Tab', 'Escape', 'Backspace', 'Delete', 'ArrowUp', 'ArrowDown', 'ArrowLeft',
  'ArrowRight', 'Home', 'End', 'PageUp', 'PageDown']);

function post(path, body) {
  return fetch(path, {method: 'POST', headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf}, body: JSON.stringify(body)});
}

// send forwards one input to the page held, after the ones before it.
function send(id, input) {
  sent = sent.then(() => post('pages/' + encodeURIComponent(id) + '/input', input)).then(async res => {
    if (!res.ok) document.getElementById('status').textContent = 'input not taken: ' + (await res.text());
  }, () => {});
}

document.addEventListener('keydown', e => {
  if (!held.has(driving) || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key.length === 1) send(driving, {kind: 'text', text: e.key});
  else if (namedKeys.has(e.key)) send(driving, {kind: 'key', key: e.key});
  else return;
  e.preventDefault();
});

function handoffBox(p) {
  const back = el('button', {type: 'button', textContent: 'Hand back', className: 'handback'});
  back.addEventListener('click', async () => {
    back.disabled = true;
    await sent;
    const res = await post('pages/' + encodeURIComponent(p.id) + '/handback', {});
    back.textContent = res.ok ? 'handed back' : 'not taken: ' + (await res.text());
    if (driving === p.id) driving = '';
  });
  const what = p.handoff.takeover ? el('p', {}, 'You took the page over; the agent waits until you hand it back. ')
    : el('p', {}, 'The agent hands you the page: ', el('strong', {className: 'reason', textContent: p.handoff.reason}), '. ');
  what.append('Click the picture to act on the page and type; what you type is never recorded or shown to the agent.');
  return el('div', {className: 'handoff'}, what, back);
}

// takeOverBox takes the page from the agent unasked: it is then held as
// in a handoff.
function takeOverBox(p) {
  const take = el('button', {type: 'button', textContent: 'Take over', className: 'takeover'});
  const outcome = el('span', {className: 'outcome'});
  take.addEventListener('click', async () => {
    take.disabled = true;
    const res = await post('pages/' + encodeURIComponent(p.id) + '/takeover', {});
    outcome.textContent = res.ok ? 'taken over' : 'not taken: ' + (await res.text());
    take.disabled = res.ok;
    if (res.ok) refresh();
  });
  return el('div', {className: 'take'}, take, outcome);
}

function el(tag, props, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  for (const c of children) e.append(c);
  return e;
}

async function answer(id, digest, decision, box) {
  box.querySelectorAll('button').forEach(b => { b.disabled = true; });
  const res = await post('approvals/' + encodeURIComponent(id), {decision, digest});
  const outcome = res.ok ? (decision === 'approve' ? 'approved' : 'denied') : 'not taken: ' + (await res.text());
  box.querySelector('.outcome').textContent = outcome;
  // The box goes with the next refresh; the log of answers stays.
  document.getElementById('answers').prepend(el('li', {textContent: outcome + ': ' + box.querySelector('.facts').textContent}));
}

function approvalBox(a) {
  const box = el('div', {className: 'approval'});
  box.dataset.approval = a.id;
  const yes = el('button', {type: 'button', textContent: 'Approve', className: 'approve'});
  const no = el('button', {type: 'button', textContent: 'Deny', className: 'deny'});
  yes.addEventListener('click', () => answer(a.id, a.digest, 'approve', box));
  no.addEventListener('click', () => answer(a.id, a.digest, 'deny', box));
  box.append(el('p', {}, 'The agent asks to act on ', el('strong', {className: 'facts', textContent: a.facts})),
    yes, no, el('span', {className: 'outcome'}));
  return box;
}

// livePicture is the page's live picture: one stream for as long as the
// page is shown, kept across the section's rebuilds.
function livePicture(id) {
  const img = el('img', {alt: 'the page, credential fields masked', className: 'picture'});
  const src = 'pages/' + encodeURIComponent(id) + '/stream';
  img.addEventListener('error', () => setTimeout(() => { if (img.isConnected) img.src = src + '?t=' + Date.now(); }, 1000));
  img.addEventListener('click', e => {
    if (!held.has(id)) return;
    driving = id;
    send(id, {kind: 'click', x: e.offsetX / img.clientWidth, y: e.offsetY / img.clientHeight});
  });
  img.src = src;
  return img;
}

function pageSection(p, img) {
  img.classList.toggle('driven', !!p.handoff);
  const sec = el('section', {className: 'page'},
    el('h2', {textContent: p.label}),
    el('div', {className: 'approvals'}, ...p.approvals.map(approvalBox)),
    el('div', {className: 'live'}, img, el('pre', {className: 'view', textContent: p.view || '(no view yet)'})));
  sec.dataset.page = p.id;
  if (p.handoff) sec.insertBefore(handoffBox(p), sec.querySelector('.live'));
  else if (p.session) sec.insertBefore(takeOverBox(p), sec.querySelector('.live'));
  if (p.timeline && p.session) {
    sec.append(el('p', {}, el('a', {href: 'sessions/' + encodeURIComponent(p.session), textContent: 'recorded timeline'})));
  }
  return sec;
}

async function refresh() {
  let st;
  try {
    const res = await fetch('state');
    if (!res.ok) throw new Error(res.status + ' ' + res.statusText);
    st = await res.json();
  } catch (e) {
    document.getElementById('status').textContent = 'not connected: ' + e.message;
    return;
  }
  csrf = st.csrf;
  const root = document.getElementById('pages');
  const live = new Set();
  held.clear();
  for (const p of st.pages) {
    live.add(p.id);
    if (p.handoff) held.add(p.id);
    const key = JSON.stringify(p);
    let s = shown.get(p.id);
    if (!s || s.key !== key) {
      const img = s ? s.img : livePicture(p.id);
      const sec = pageSection(p, img);
      if (s) root.replaceChild(sec, s.section); else root.append(sec);
      s = {key, section: sec, img};
      shown.set(p.id, s);
    }
  }
  for (const [id, s] of shown) {
    if (!live.has(id)) { s.img.removeAttribute('src'); s.section.remove(); shown.delete(id); }
  }
  document.getElementById('status').textContent = st.pages.length + ' live session(s)';
}

refresh();
setInterval(refresh, 1000);
