
'use strict';
(function () {
  // The page talks to /api/v1 on its own origin. It sends no key: the server knows this browser
  // by its HttpOnly tenant cookie. User data only ever reaches the DOM through textContent.
  var MAX_CHARS = 100000;
  var TOKEN_RE = /\[\[[A-Z]+_[0-9]+\]\]/g;
  var EXAMPLE =
    'Sehr geehrter Herr Max Mustermann,\n\n' +
    'vielen Dank für Ihre Nachricht vom 14.03.2024. Bitte überweisen Sie den Betrag auf das Konto\n' +
    'IBAN DE89 3704 0044 0532 0130 00 bei der Commerzbank.\n\n' +
    'Ihre Steuer-ID 86095742719 haben wir notiert. Unsere Anschrift lautet\n' +
    'Musterstraße 12, 10115 Berlin. Rückfragen gern an anna.schmidt@example.de\n' +
    'oder telefonisch unter +49 30 1234567.\n\n' +
    'Mit freundlichen Grüßen\nAnna Schmidt\n';

  var state = { session: null, deleted: false, mapping: [], anonymizedText: '', restored: '' };
  var entityInfo = {};

  function $(id) { return document.getElementById(id); }

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === 'className') { node.className = attrs[k]; } else { node.setAttribute(k, attrs[k]); }
      });
    }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  // Length in Unicode code points, as the API counts it.
  function codePoints(s) {
    var n = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
        var d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) { i++; }
      }
      n++;
    }
    return n;
  }

  function ApiError(status, code, message, retryAfter) {
    this.status = status;
    this.code = code;
    this.message = message;
    this.retryAfter = retryAfter;
  }

  function api(method, path, body) {
    var init = { method: method, credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch('/api/v1' + path, init).then(function (resp) {
      return resp.text().then(function (raw) {
        var data = null;
        try { data = raw ? JSON.parse(raw) : null; } catch (e) { data = null; }
        if (!resp.ok) {
          var code = data && typeof data.error === 'string' ? data.error : 'http_' + resp.status;
          var message = data && typeof data.message === 'string'
            ? data.message
            : 'The service answered with HTTP status ' + resp.status + '.';
          throw new ApiError(resp.status, code, message, resp.headers.get('Retry-After'));
        }
        if (data === null || typeof data !== 'object') {
          throw new ApiError(resp.status, 'unreadable', 'The service sent an answer this page cannot read.');
        }
        return data;
      });
    }, function () {
      throw new ApiError(0, 'network', 'The service could not be reached. Check the connection and try again.');
    });
  }

  // Shows an error exactly as the API words it, with the status and code as a small detail.
  function showError(target, err) {
    var box = $(target);
    clear(box);
    if (!(err instanceof ApiError)) {
      err = new ApiError(0, 'page', 'Something went wrong in this page. Reload it and try again.');
    }
    box.appendChild(el('span', { className: 'message' }, err.message));
    var detail = [];
    if (err.status) { detail.push('HTTP ' + err.status); }
    if (err.code) { detail.push(err.code); }
    if (err.retryAfter) { detail.push('try again in ' + err.retryAfter + ' s'); }
    if (detail.length) { box.appendChild(el('span', { className: 'detail' }, detail.join(' · '))); }
    box.hidden = false;
  }

  function hideError(target) {
    var box = $(target);
    clear(box);
    box.hidden = true;
  }

  function announce(text) {
    var status = $('status');
    status.textContent = '';
    // A fresh text node makes screen readers announce repeated messages too.
    window.setTimeout(function () { status.textContent = text; }, 30);
    window.clearTimeout(announce.timer);
    announce.timer = window.setTimeout(function () { status.textContent = ''; }, 5000);
  }

  // Marks a button as working without disabling it: a disabled button would drop the keyboard
  // focus, and keyboard users would have to find their place again.
  function busy(button, on) {
    if (on) {
      button.setAttribute('aria-disabled', 'true');
      button.setAttribute('aria-busy', 'true');
    } else {
      button.removeAttribute('aria-disabled');
      button.removeAttribute('aria-busy');
    }
  }

  function isBusy(button) { return button.getAttribute('aria-busy') === 'true'; }

  // ---- counter ----
  function updateCounter() {
    var n = codePoints($('anon-input').value);
    var counter = $('anon-count');
    var over = n > MAX_CHARS;
    counter.textContent = n + ' / ' + MAX_CHARS + ' characters' + (over ? ' — over the limit' : '');
    counter.classList.toggle('over', over);
  }

  // ---- anonymize ----
  function scoreText(score) {
    return typeof score === 'number' ? score.toFixed(2) : '–';
  }

  function renderResult(data) {
    var mapping = Array.isArray(data.mapping) ? data.mapping : [];
    var entities = Array.isArray(data.entities) ? data.entities : [];
    var byToken = {};
    mapping.forEach(function (m) {
      if (m && typeof m.token === 'string') {
        byToken[m.token] = { type: String(m.entity_type || ''), value: String(m.value), score: null, count: 0 };
      }
    });
    entities.forEach(function (e) {
      var info = e && byToken[e.token];
      if (info) {
        info.count++;
        if (typeof e.score === 'number' && (info.score === null || e.score > info.score)) { info.score = e.score; }
      }
    });

    var text = typeof data.anonymized_text === 'string' ? data.anonymized_text : '';
    var out = $('anon-output');
    clear(out);
    var last = 0;
    text.replace(TOKEN_RE, function (token, offset) {
      var info = byToken[token];
      if (!info) { return token; }
      if (offset > last) { out.appendChild(document.createTextNode(text.slice(last, offset))); }
      var mark = el('mark', { className: 'tok', tabindex: '0', 'data-type': info.type, 'data-token': token }, token);
      out.appendChild(mark);
      last = offset + token.length;
      return token;
    });
    if (last < text.length) { out.appendChild(document.createTextNode(text.slice(last))); }
    out.tokenInfo = byToken;

    var stats = data.stats || {};
    var dl = $('stats');
    clear(dl);
    [
      ['Entities found', stats.entityCount, ''],
      ['Unique tokens', stats.uniqueTokens, ''],
      ['Anonymized', stats.anonymizationRate, ' %'],
      ['Data loss', stats.dataLoss, ' %']
    ].forEach(function (row) {
      var div = el('div');
      div.appendChild(el('dt', null, row[0]));
      div.appendChild(el('dd', null, (typeof row[1] === 'number' ? row[1] : '–') + row[2]));
      dl.appendChild(div);
    });
    $('session-id').textContent = String(data.session_id || '');

    var tbody = $('mapping-table').querySelector('tbody');
    clear(tbody);
    mapping.forEach(function (m) {
      var tr = el('tr');
      var tokenCell = el('td');
      tokenCell.appendChild(el('code', { className: 'tok', 'data-type': String(m.entity_type || '') }, m.token));
      tr.appendChild(tokenCell);
      tr.appendChild(el('td', null, m.entity_type));
      tr.appendChild(el('td', { className: 'value' }, m.value));
      tbody.appendChild(tr);
    });
    $('mapping-table').parentNode.hidden = mapping.length === 0;
    $('mapping-empty').hidden = mapping.length !== 0;

    state.session = typeof data.session_id === 'string' ? data.session_id : null;
    state.deleted = false;
    state.mapping = mapping.map(function (m) {
      return { token: m.token, entity_type: m.entity_type, value: m.value };
    });
    state.anonymizedText = text;
    $('restore-notice').hidden = true;
    $('result').hidden = false;
  }

  function onAnonymize(event) {
    event.preventDefault();
    var button = $('anon-submit');
    if (isBusy(button)) { return; }
    hideError('anon-error');
    hideTip();
    busy(button, true);
    var body = { text: $('anon-input').value };
    var terms = $('anon-terms').value.split(',').map(function (t) { return t.trim(); })
      .filter(function (t) { return t.length > 0; });
    if (terms.length) { body.deny_terms = terms; }
    api('POST', '/anonymize', body)
      .then(function (data) {
        renderResult(data);
        var n = state.mapping.length;
        announce('Anonymized: ' + n + (n === 1 ? ' token' : ' tokens') + ' replace personal data.');
      }, function (err) { showError('anon-error', err); })
      .then(function () { busy(button, false); });
  }

  // ---- tooltip (hover and keyboard focus) ----
  var tipFor = null;

  function showTip(mark) {
    window.clearTimeout(hideTimer);
    var out = $('anon-output');
    var info = out.tokenInfo && out.tokenInfo[mark.getAttribute('data-token')];
    if (!info) { return; }
    var tip = $('tip');
    clear(tip);
    var dl = el('dl');
    var described = entityInfo[info.type];
    [
      ['Type', info.type + (described ? ' — ' + described : '')],
      ['Score', scoreText(info.score)],
      ['Original', info.value]
    ].concat(info.count > 1 ? [['Occurrences', String(info.count)]] : []).forEach(function (row) {
      dl.appendChild(el('dt', null, row[0]));
      dl.appendChild(el('dd', null, row[1]));
    });
    tip.appendChild(dl);
    tip.hidden = false;
    if (tipFor && tipFor !== mark) { tipFor.removeAttribute('aria-describedby'); }
    tipFor = mark;
    mark.setAttribute('aria-describedby', 'tip');

    var r = mark.getBoundingClientRect();
    var docEl = document.documentElement;
    var width = tip.offsetWidth;
    var height = tip.offsetHeight;
    var left = Math.min(Math.max(8, r.left), docEl.clientWidth - width - 8);
    var top = r.bottom + 6;
    if (top + height > docEl.clientHeight && r.top - height - 6 > 0) { top = r.top - height - 6; }
    tip.style.left = Math.max(8, left + window.scrollX) + 'px';
    tip.style.top = (top + window.scrollY) + 'px';
  }

  // The pointer may move from a token onto its tooltip (to read or select it) without the
  // tooltip vanishing: hiding after a pointer leaves waits a moment and is called off on entry.
  var hideTimer = null;

  function hideTipSoon() {
    window.clearTimeout(hideTimer);
    hideTimer = window.setTimeout(function () {
      if (!tipFor || document.activeElement !== tipFor) { hideTip(); }
    }, 200);
  }

  function hideTip() {
    window.clearTimeout(hideTimer);
    $('tip').hidden = true;
    if (tipFor) { tipFor.removeAttribute('aria-describedby'); tipFor = null; }
  }

  function tokenOf(target) {
    return target && target.closest ? target.closest('mark.tok') : null;
  }

  // ---- copy ----
  function copy(text, done) {
    function fallback() {
      var area = el('textarea', { readonly: '', 'aria-hidden': 'true' });
      area.value = text;
      area.style.position = 'fixed';
      area.style.left = '-9999px';
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      document.body.removeChild(area);
      announce(ok ? done : 'Copying is not allowed here; select the text and copy it by hand.');
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { announce(done); }, fallback);
    } else {
      fallback();
    }
  }

  // ---- restore and delete ----
  function needSession() {
    if (state.session) { return true; }
    showError('restore-error', new ApiError(0, '', 'Anonymize a text first: restoring uses the session it creates.'));
    return false;
  }

  function onRestore(event) {
    event.preventDefault();
    var button = $('restore-submit');
    if (isBusy(button)) { return; }
    hideError('restore-error');
    if (!needSession()) { return; }
    busy(button, true);
    api('POST', '/deanonymize', { text: $('restore-input').value, session_id: state.session })
      .then(function (data) {
        state.restored = typeof data.text === 'string' ? data.text : '';
        $('restore-output').textContent = state.restored;
        $('restore-result').hidden = false;
        announce('Restored.');
      }, function (err) {
        $('restore-result').hidden = true;
        showError('restore-error', err);
      })
      .then(function () { busy(button, false); });
  }

  function onDeleteClick() {
    hideError('restore-error');
    if (!needSession()) { return; }
    $('confirm-session').textContent = state.session;
    var dialog = $('confirm-delete');
    if (typeof dialog.showModal === 'function') {
      dialog.showModal();
      $('confirm-no').focus();
    } else if (window.confirm('Delete this session? Its mapping is erased from the server for good.')) {
      doDelete();
    }
  }

  function closeDialog() {
    var dialog = $('confirm-delete');
    if (dialog.open) { dialog.close(); }
    $('delete-session').focus();
  }

  function doDelete() {
    var id = state.session;
    var yes = $('confirm-yes');
    if (isBusy(yes)) { return; }
    busy(yes, true);
    api('DELETE', '/session/' + encodeURIComponent(id))
      .then(function () {
        state.deleted = true;
        if (state.session === id) { $('session-id').textContent = id + ' (deleted)'; }
        var notice = $('restore-notice');
        notice.textContent = 'Session ' + id + ' deleted. Its mapping is gone from the server; its tokens can no longer be restored.';
        notice.hidden = false;
        $('restore-result').hidden = true;
        announce('Session deleted.');
      }, function (err) { showError('restore-error', err); })
      .then(function () {
        busy(yes, false);
        closeDialog();
      });
  }

  // ---- the policy of this browser's tenant ----
  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

  function loadPolicy() {
    api('GET', '/policy').then(function (p) {
      var types = Array.isArray(p.types) ? p.types : [];
      var blocked = types.filter(function (t) { return t.action === 'block'; }).length;
      $('policy-summary').textContent = 'Policy "' + String(p.name) + '": ' +
        plural(types.length, 'type', 'types') + ' detected, ' +
        plural(blocked, 'type blocks', 'types block') + ' the request, ' +
        plural(p.deny_terms | 0, 'deny term', 'deny terms') + ', ' +
        plural(p.recognizers | 0, 'custom recognizer', 'custom recognizers') + ', ' +
        plural((p.allow_entries | 0) + (p.allow_patterns | 0), 'allow entry', 'allow entries') + '.';
      var tbody = $('policy-table').querySelector('tbody');
      clear(tbody);
      types.forEach(function (t) {
        var tr = el('tr', { 'data-type': String(t.entity_type) });
        tr.appendChild(el('td', null, t.entity_type + (t.origin === 'custom' ? ' (policy)' : '')));
        var tokenCell = el('td');
        tokenCell.appendChild(el('code', { className: 'tok', 'data-type': String(t.entity_type) }, '[[' + t.token_prefix + '_1]]'));
        tr.appendChild(tokenCell);
        tr.appendChild(el('td', null, scoreText(t.min_score)));
        tr.appendChild(el('td', null, t.action));
        tbody.appendChild(tr);
      });
      $('policy-wrap').hidden = types.length === 0;
    }, function (err) { showError('policy-error', err); });
  }

  // ---- legend and version ----
  function loadLegend() {
    api('GET', '/entities').then(function (data) {
      var list = $('legend');
      clear(list);
      (Array.isArray(data.entities) ? data.entities : []).forEach(function (e) {
        entityInfo[e.entity_type] = e.description;
        var li = el('li');
        li.appendChild(el('code', { className: 'tok', 'data-type': String(e.entity_type) }, e.token_example));
        var label = el('span');
        label.appendChild(el('strong', null, e.entity_type));
        label.appendChild(el('span', { className: 'desc' }, ' ' + e.description));
        li.appendChild(label);
        list.appendChild(li);
      });
    }, function (err) { showError('legend-error', err); });
    api('GET', '/health').then(function (data) {
      if (typeof data.version === 'string') { $('version').textContent = 'v' + data.version; }
    }, function () { /* the footer simply shows no version */ });
  }

  function ctrlEnter(form) {
    return function (event) {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        form.requestSubmit ? form.requestSubmit() : form.dispatchEvent(new Event('submit', { cancelable: true }));
      }
    };
  }

  function init() {
    var anonForm = $('anon-form');
    var restoreForm = $('restore-form');
    var input = $('anon-input');
    anonForm.addEventListener('submit', onAnonymize);
    restoreForm.addEventListener('submit', onRestore);
    input.addEventListener('input', updateCounter);
    input.addEventListener('keydown', ctrlEnter(anonForm));
    $('restore-input').addEventListener('keydown', ctrlEnter(restoreForm));
    $('anon-example').addEventListener('click', function () {
      input.value = EXAMPLE;
      updateCounter();
      input.focus();
    });
    $('anon-clear').addEventListener('click', function () {
      input.value = '';
      updateCounter();
      hideError('anon-error');
      input.focus();
    });
    $('copy-text').addEventListener('click', function () {
      copy(state.anonymizedText, 'Anonymized text copied.');
    });
    $('copy-mapping').addEventListener('click', function () {
      copy(JSON.stringify(state.mapping, null, 2), 'Mapping copied as JSON.');
    });
    $('copy-restored').addEventListener('click', function () {
      copy(state.restored, 'Restored text copied.');
    });
    $('delete-session').addEventListener('click', onDeleteClick);
    $('confirm-yes').addEventListener('click', doDelete);
    $('confirm-no').addEventListener('click', closeDialog);
    $('confirm-delete').addEventListener('cancel', function (event) {
      event.preventDefault();
      closeDialog();
    });

    var out = $('anon-output');
    out.addEventListener('mouseover', function (e) {
      var m = tokenOf(e.target);
      if (m) { window.clearTimeout(hideTimer); showTip(m); }
    });
    out.addEventListener('mouseout', function (e) {
      var m = tokenOf(e.target);
      if (m && !m.contains(e.relatedTarget)) { hideTipSoon(); }
    });
    $('tip').addEventListener('mouseenter', function () { window.clearTimeout(hideTimer); });
    $('tip').addEventListener('mouseleave', hideTipSoon);
    out.addEventListener('focusin', function (e) { var m = tokenOf(e.target); if (m) { showTip(m); } });
    out.addEventListener('focusout', function () { hideTip(); });
    document.addEventListener('keydown', function (e) { if (e.key === 'Escape') { hideTip(); } });
    window.addEventListener('resize', hideTip);

    updateCounter();
    loadLegend();
    loadPolicy();
  }

  init();
}());
