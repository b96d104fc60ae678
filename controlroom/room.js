// The control room's page: it reads /state every second and shows each
// live session. Everything a page or the model wrote is set as text, never
// as markup.
'use strict';

let csrf = '';
const shown = new Map(); // page id → {key, section}

function el(tag, props, ...children) {
  const e = document.createElement(tag);
  Object.assign(e, props);
  for (const c of children) e.append(c);
  return e;
}

async function answer(id, digest, decision, box) {
  box.querySelectorAll('button').forEach(b => { b.disabled = true; });
  const res = await fetch('/approvals/' + encodeURIComponent(id), {
    method: 'POST',
    headers: {'Content-Type': 'application/json', 'X-CSRF-Token': csrf},
    body: JSON.stringify({decision, digest}),
  });
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

function pageSection(p) {
  const img = el('img', {alt: 'the page, credential fields masked', className: 'picture'});
  img.dataset.src = '/pages/' + encodeURIComponent(p.id) + '/picture';
  const sec = el('section', {className: 'page'},
    el('h2', {textContent: p.label}),
    el('div', {className: 'approvals'}, ...p.approvals.map(approvalBox)),
    el('div', {className: 'live'}, img, el('pre', {className: 'view', textContent: p.view || '(no view yet)'})));
  sec.dataset.page = p.id;
  if (p.timeline && p.session) {
    sec.append(el('p', {}, el('a', {href: '/sessions/' + encodeURIComponent(p.session), textContent: 'recorded timeline'})));
  }
  return sec;
}

async function refresh() {
  let st;
  try {
    const res = await fetch('/state');
    if (!res.ok) throw new Error(res.status + ' ' + res.statusText);
    st = await res.json();
  } catch (e) {
    document.getElementById('status').textContent = 'not connected: ' + e.message;
    return;
  }
  csrf = st.csrf;
  const root = document.getElementById('pages');
  const live = new Set();
  for (const p of st.pages) {
    live.add(p.id);
    const key = JSON.stringify(p);
    let s = shown.get(p.id);
    if (!s || s.key !== key) {
      const sec = pageSection(p);
      if (s) root.replaceChild(sec, s.section); else root.append(sec);
      s = {key, section: sec};
      shown.set(p.id, s);
    }
    const img = s.section.querySelector('img.picture');
    img.src = img.dataset.src + '?t=' + Date.now();
  }
  for (const [id, s] of shown) {
    if (!live.has(id)) { s.section.remove(); shown.delete(id); }
  }
  document.getElementById('status').textContent = st.pages.length + ' live session(s)';
}

refresh();
setInterval(refresh, 1000);
