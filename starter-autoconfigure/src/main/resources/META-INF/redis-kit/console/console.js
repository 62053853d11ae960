// The redis-kit console: one page, nine views, polling the JSON endpoints beside it.
// Every value from the server is data: the DOM is built with createElement and textContent, never innerHTML,
// so a queue name, key, lock name, reason or payload holding markup shows as the characters it is.
(function () {
	'use strict';

	var POLL_MILLIS = 5000;
	var session = null;
	var timer = null;
	var state = { queue: null, page: 0, confirmPurge: false, confirmDelete: null, confirmClear: null, report: null, reportError: null,
		reportRunning: false, rank: null, recent: null, lookup: { name: null, key: '', result: null, error: null } };

	// el('td', {class: 'num'}, 'text', child): attributes from this script only; children as text or nodes.
	function el(tag, attrs) {
		var node = document.createElement(tag);
		if (attrs) {
			Object.keys(attrs).forEach(function (name) {
				if (name === 'onclick' || name === 'oninput') {
					node.addEventListener(name.substring(2), attrs[name]);
				}
				else if (attrs[name] !== null && attrs[name] !== undefined && attrs[name] !== false) {
					node.setAttribute(name, attrs[name] === true ? '' : String(attrs[name]));
				}
			});
		}
		for (var i = 2; i < arguments.length; i++) {
			append(node, arguments[i]);
		}
		return node;
	}

	function append(node, child) {
		if (child === null || child === undefined) {
			return;
		}
		if (Array.isArray(child)) {
			child.forEach(function (c) { append(node, c); });
		}
		else if (child instanceof Node) {
			node.appendChild(child);
		}
		else {
			node.appendChild(document.createTextNode(String(child)));
		}
	}

	function api(path, options) {
		var request = Object.assign({ credentials: 'same-origin', headers: { 'Accept': 'application/json' } }, options || {});
		return fetch('api/' + path, request).then(function (response) {
			return response.text().then(function (text) {
				var body = null;
				try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
				if (!response.ok) {
					var error = new Error((body && body.error) || ('HTTP ' + response.status));
					error.status = response.status;
					throw error;
				}
				return body;
			});
		});
	}

	function act(path) {
		var headers = { 'Accept': 'application/json' };
		headers[session.actionHeader] = 'action';
		if (session.csrf) {
			headers[session.csrf.header] = session.csrf.token;
		}
		return api(path, { method: 'POST', headers: headers });
	}

	function q(value) {
		return encodeURIComponent(value);
	}

	// ---- formatting

	function num(value, digits) {
		if (value === null || value === undefined) {
			return '–';
		}
		if (typeof value !== 'number') {
			return String(value);
		}
		if (digits === undefined) {
			digits = Math.abs(value) >= 100 || Number.isInteger(value) ? 0 : 2;
		}
		return value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
	}

	// A length of time in the largest unit that reads well: 250 ms, 1.5 s, 5 s, 90 s, 1 min, 2 h, 1 day, 400 days.
	// A unit is used from one of it when the value is whole in it, else from two (90 s, not 1.5 min).
	var UNITS = [[86400000, ' day', ' days'], [3600000, ' h', ' h'], [60000, ' min', ' min'], [1000, ' s', ' s']];

	function millis(value) {
		if (value === null || value === undefined) {
			return '–';
		}
		var abs = Math.abs(value);
		if (abs === 0) {
			return '0 s';
		}
		for (var i = 0; i < UNITS.length; i++) {
			var unit = UNITS[i][0], count = abs / unit;
			if (count >= 2 || (count >= 1 && (Number.isInteger(count) || unit === 1000))) {
				var shown = num(value / unit, count >= 100 ? 0 : 1);
				return shown + (Math.abs(value / unit) === 1 ? UNITS[i][1] : UNITS[i][2]);
			}
		}
		return num(value, abs < 10 && !Number.isInteger(value) ? 2 : 0) + ' ms';
	}

	var UNIT_MILLIS = { d: 86400000, h: 3600000, m: 60000, s: 1000, ms: 1, us: 0.001, ns: 0.000001 };

	// A duration as every endpoint writes it (Durations.format: 400d, 5m, 1500ms), in human units; any other text
	// as it is. Remaining times come as milliseconds (...Millis fields) and go through millis().
	function duration(value) {
		if (value === null || value === undefined || value === '') {
			return '–';
		}
		var text = String(value);
		var short = /^(-?\d+(?:\.\d+)?)(d|h|m|s|ms|us|ns)$/.exec(text);
		if (short) {
			return millis(+short[1] * UNIT_MILLIS[short[2]]);
		}
		return text;
	}

	// A member, item or name given in code the server hid (redis-kit.console.show-payloads is off) comes as null.
	function valueOrHidden(value) {
		return value === null ? el('span', { class: 'muted' }, '(hidden)') : value;
	}

	function ago(value) {
		return value === null || value === undefined ? '–' : millis(value) + ' ago';
	}

	// Every size the page shows, in the unit that reads well: 512 B, 1.5 KB, 48 MB, 2.1 GB (1 KB = 1024 bytes, as
	// Redis's own *_human figures count).
	var SIZE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

	function bytes(value) {
		if (value === null || value === undefined) {
			return '–';
		}
		var i = 0;
		while (Math.abs(value) >= 1024 && i < SIZE_UNITS.length - 1) { value /= 1024; i++; }
		return num(value, i === 0 ? 0 : 1) + ' ' + SIZE_UNITS[i];
	}

	function percent(value) {
		return value === null || value === undefined ? '–' : num(value * 100, value < 0.01 ? 4 : 2) + ' %';
	}

	// An instant as ISO-8601 text, or seconds since the epoch as a number.
	function time(value) {
		if (value === null || value === undefined || value === '') {
			return '–';
		}
		return new Date(typeof value === 'number' ? value * 1000 : value).toLocaleString();
	}

	// The fields of a descriptor the page has no column for (what a newer endpoint adds), as 'name: value' text.
	var QUEUE_FIELDS = ['delayed', 'ready', 'inFlight', 'dead', 'oldestDueAgeMillis', 'paused', 'error'];
	var RECURRING_FIELDS = ['queue', 'schedule', 'zone', 'missedSlots', 'lastSlot', 'lastSlotTakenBy', 'nextSlot', 'paused'];

	function more(descriptor, shown) {
		var rest = Object.keys(descriptor).filter(function (key) {
			var value = descriptor[key];
			return shown.indexOf(key) < 0 && value !== null && value !== undefined
				&& !(Array.isArray(value) && value.length === 0) && !(typeof value === 'object' && Object.keys(value).length === 0);
		});
		if (rest.length === 0) {
			return '–';
		}
		return rest.map(function (key) {
			var value = descriptor[key];
			var text = typeof value === 'object' ? JSON.stringify(value)
				: (/Millis$/.test(key) ? millis(value) : (typeof value === 'number' ? num(value) : String(value)));
			return key.replace(/Millis$/, '') + ': ' + text;
		}).join('; ');
	}

	// The instances that use a semaphore or latch, by their names; none listed when only this one's handle knows it
	// (it used it before its last heartbeat).
	function users(names) {
		return names && names.length ? names.join(', ') : '–';
	}

	function fillBar(ratio, hot) {
		var bar = el('span', { class: hot ? 'bar hot' : 'bar' }, el('i'));
		bar.firstChild.style.width = Math.min(100, ratio * 100).toFixed(1) + '%';
		return bar;
	}

	function meters(value) {
		if (value === null || value === undefined) {
			return '–';
		}
		return value >= 1000 ? num(value / 1000, 1) + ' km' : num(value) + ' m';
	}

	// A rate per second, in the unit that reads well: 0.2 /min below one a second.
	function rate(value) {
		if (value === null || value === undefined) {
			return '–';
		}
		return value !== 0 && Math.abs(value) < 1 ? num(value * 60, 1) + ' /min' : num(value, 1) + ' /s';
	}

	// ---- charts: SVG polylines built from numbers only

	var SVG = 'http://www.w3.org/2000/svg';

	function chart(title, lines, unit) {
		var width = 300, height = 60;
		var svg = document.createElementNS(SVG, 'svg');
		svg.setAttribute('class', 'spark');
		svg.setAttribute('width', width);
		svg.setAttribute('height', height);
		svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
		svg.setAttribute('preserveAspectRatio', 'none');
		var all = [];
		lines.forEach(function (line) { line.points.forEach(function (p) { if (p[1] !== null) { all.push(p); } }); });
		var legend = el('div', { class: 'legend' });
		if (all.length > 0) {
			var t0 = Math.min.apply(null, all.map(function (p) { return p[0]; }));
			var t1 = Math.max.apply(null, all.map(function (p) { return p[0]; }));
			var max = Math.max.apply(null, all.map(function (p) { return p[1]; }));
			if (max <= 0) { max = 1; }
			lines.forEach(function (line, i) {
				var points = line.points.filter(function (p) { return p[1] !== null; }).map(function (p) {
					var x = t1 === t0 ? width - 2 : 2 + (p[0] - t0) / (t1 - t0) * (width - 4);
					var y = height - 3 - (p[1] / max) * (height - 8);
					return x.toFixed(1) + ',' + y.toFixed(1);
				});
				var polyline = document.createElementNS(SVG, 'polyline');
				polyline.setAttribute('class', 's' + (i % 5));
				polyline.setAttribute('points', points.join(' '));
				svg.appendChild(polyline);
				var last = line.points.length ? line.points[line.points.length - 1][1] : null;
				legend.appendChild(el('span', null, el('i', { class: 'l' + (i % 5) }), line.label + ' ' + num(last) + (unit ? ' ' + unit : '')));
			});
		}
		else {
			legend.appendChild(el('span', { class: 'muted' }, 'no samples yet'));
		}
		return el('div', { class: 'card chart' }, el('h3', null, title), svg, legend);
	}

	// Series of one meter name, filtered by tags, merged by a tag (or summed into one line) per sample time.
	function lines(series, name, field, filter, splitBy) {
		var groups = {};
		series.forEach(function (s) {
			if (s.name !== name) { return; }
			for (var key in (filter || {})) {
				if (s.tags[key] !== filter[key]) { return; }
			}
			var label = splitBy ? (s.tags[splitBy] || '') : name;
			var group = groups[label] || (groups[label] = {});
			s.samples.forEach(function (sample) {
				var value = sample[field];
				if (value === null || value === undefined) { return; }
				group[sample.t] = (group[sample.t] || 0) + value;
			});
		});
		return Object.keys(groups).sort().map(function (label) {
			var points = Object.keys(groups[label]).map(Number).sort().map(function (t) { return [t, groups[label][t]]; });
			return { label: label, points: points };
		});
	}

	function table(headers, rows, empty) {
		if (rows.length === 0) {
			return el('p', { class: 'muted' }, empty);
		}
		return el('table', null,
			el('thead', null, el('tr', null, headers.map(function (h) {
				return el('th', { class: h.charAt(0) === '#' ? 'num' : null }, h.charAt(0) === '#' ? h.substring(1) : h);
			}))),
			el('tbody', null, rows));
	}

	function notConfigured(area) {
		return el('p', { class: 'muted' }, area + ' are not configured in this application.');
	}

	// ---- pages

	var pages = {
		overview: function () {
			return Promise.all([api('overview'), api('metrics?prefix=rediskit.')]).then(function (r) {
				var overview = r[0], series = r[1].series;
				var redis = overview.redis;
				var cards = overview.areas.map(function (area) {
					var card = el('div', { class: 'card', 'data-area': area.id },
						el('h3', null, area.title),
						el('div', { class: 'big' }, area.configured ? (area.count === null ? 'on' : num(area.count)) : 'off'),
						el('div', { class: 'muted' }, area.configured ? 'configured' : 'not configured'));
					if (area.configured) {
						var main = lines(series, area.metric, 'rate', null, null);
						main.forEach(function (line) { line.label = 'now'; });
						card.appendChild(chart(area.metric + ' per second', main.length ? main : [{ label: '', points: [] }]));
					}
					return card;
				});
				return el('section', { id: 'page-overview' },
					el('h1', null, 'Overview'),
					el('p', null, 'Redis: ', redis.up
						? el('span', { class: 'status-up', id: 'redis-status' }, 'UP')
						: el('span', { class: 'status-down', id: 'redis-status' }, 'DOWN'),
						redis.up ? ' (PING ' + millis(redis.pingMillis) + ')' : ' ' + (redis.error || '')),
					el('div', { class: 'cards' }, cards));
			});
		},

		instances: function () {
			return api('instances').then(function (view) {
				if (!view.heartbeat) {
					return el('section', { id: 'page-instances' }, el('h1', null, 'Instances'),
						el('p', { class: 'muted' }, 'This instance keeps no heartbeat (redis-kit.console.heartbeat.enabled is false), so it lists no instance.'));
				}
				var instances = view.instances.map(function (instance) {
					return el('tr', { 'data-id': instance.id, 'data-alive': String(instance.alive) },
						el('td', { class: 'text name' }, instance.name, instance.self ? el('span', { class: 'muted' }, ' (this one)') : null),
						el('td', { class: instance.alive ? 'status-up' : 'status-down' }, instance.alive ? 'alive' : 'gone'),
						el('td', { class: 'text' }, instance.version),
						el('td', null, time(instance.startedAt)),
						el('td', { class: 'num' }, ago(instance.sinceHeartbeatMillis)),
						el('td', { class: 'text runs' }, instance.runs.length ? instance.runs.join(', ') : '–'),
						el('td', { class: 'num' }, num(instance.holds) + (instance.heldOmitted ? ' (+' + num(instance.heldOmitted) + ' not listed)' : '')));
				});
				var holds = view.holds.map(function (hold) {
					return el('tr', { 'data-name': hold.name, 'data-instance': hold.instanceId },
						el('td', { class: 'text name' }, valueOrHidden(hold.name)), el('td', null, hold.kind),
						el('td', { class: 'text holder' }, hold.instance, hold.instanceAlive ? null : el('span', { class: 'status-down' }, ' (gone)')),
						el('td', { class: 'text' }, hold.owner), el('td', null, time(hold.heldSince)),
						el('td', { class: 'num lease' }, millis(hold.leaseRemainingMillis)),
						el('td', { class: 'num' }, String(hold.fencingToken)));
				});
				var leaders = view.leaders.map(function (leader) {
					return el('tr', { 'data-role': leader.role, 'data-instance': leader.instanceId },
						el('td', { class: 'text role' }, leader.role),
						el('td', { class: 'text holder' }, leader.instance, leader.instanceAlive ? null : el('span', { class: 'status-down' }, ' (gone)')),
						el('td', { class: 'num' }, String(leader.term)), el('td', null, time(leader.since)));
				});
				return el('section', { id: 'page-instances' },
					el('h1', null, 'Instances'),
					el('p', { class: 'muted' }, 'Every instance with the console enabled sends a heartbeat every ' + millis(view.intervalMillis)
						+ ' and is shown as gone after ' + millis(view.goneAfterMillis) + ' without one. Held locks are as each holder reported them in its last heartbeat; a gone holder\'s hold is listed until its lease ends.'),
					el('div', { id: 'instances' }, table(['Instance', 'State', 'Version', 'Started', '#Last heartbeat', 'Runs', '#Holds'], instances,
						'No instance has sent a heartbeat.')),
					el('h2', null, 'Held across instances'),
					el('div', { id: 'cluster-holds' }, table(['Name', 'Kind', 'Held by', 'Owner', 'Since', '#Lease left', '#Fencing token'], holds,
						'No instance holds a lock.')),
					el('h2', null, 'Leaders'),
					el('div', { id: 'leaders' }, table(['Role', 'Led by', '#Term', 'Since'], leaders,
						'No instance leads a role (redis-kit.lock.leader.roles).')));
			});
		},

		locks: function () {
			return Promise.all([api('locks'), api('metrics?prefix=rediskit.lock.')]).then(function (r) {
				var locks = r[0], series = r[1].series;
				if (!locks.configured) { return el('section', { id: 'page-locks' }, el('h1', null, 'Locks'), notConfigured('Locks')); }
				var rows = locks.held.map(function (lock) {
					return el('tr', { 'data-name': lock.name, 'data-group': lock.group },
						el('td', { class: 'text name' }, valueOrHidden(lock.name)), el('td', { class: 'text group' }, lock.group || '–'), el('td', null, lock.kind), el('td', { class: 'text' }, lock.owner),
						el('td', null, time(lock.heldSince)), el('td', { class: 'num' }, millis(lock.leaseRemainingMillis)),
						el('td', { class: 'num' }, num(lock.fencingToken)), el('td', { class: 'num' }, num(lock.holdCount)),
						el('td', null, lock.watchdog ? 'yes' : 'no'));
				});
				var jobs = (locks.jobs || []).map(function (entry) {
					var job = entry.job;
					var state = entry.error ? el('td', { class: 'error' }, entry.error)
						: el('td', { 'data-state': entry.state || '' }, job.keyed ? 'per key'
							: entry.state + (entry.state === 'free' ? '' : ' (' + millis(entry.stateRemainingMillis) + ')'));
					return el('tr', { 'data-name': job.name },
						el('td', { class: 'text' }, job.name), el('td', null, duration(job.lockAtLeastFor) + ' / ' + duration(job.lockAtMostFor)),
						el('td', null, time(job.lastStart)), el('td', null, time(job.lastEnd)),
						el('td', { class: 'outcome' }, job.running ? 'running' : (job.lastOutcome || '')),
						el('td', null, time(job.lastSkip)), el('td', { class: 'num' }, num(job.runs)),
						el('td', { class: 'num' }, num(job.skips)), state);
				});
				return el('section', { id: 'page-locks' },
					el('h1', null, 'Locks'),
					el('h2', null, 'Held by this instance'),
					el('p', { class: 'muted' }, 'Locks, semaphore permits, read-write and fair locks of this instance; ',
						el('a', { href: '#instances' }, 'Instances'), ' lists every instance\'s.'),
					table(['Name', 'Group', 'Kind', 'Holder', 'Since', '#Lease left', '#Fencing token', '#Holds', 'Watchdog'], rows,
						'This instance holds no lock.'),
					el('h2', null, 'Roles this instance stands for'),
					el('div', { id: 'roles' }, table(['Role', 'Leader', '#Term', 'This instance'], (locks.leaders || []).map(function (role) {
						return el('tr', { 'data-role': role.role }, el('td', { class: 'text' }, role.role),
							el('td', { class: 'text' }, role.leader || 'none'), el('td', { class: 'num' }, role.term ? String(role.term) : '–'),
							el('td', null, role.leading ? 'leads' : 'candidate'));
					}), 'This instance stands for no role (redis-kit.lock.leader.roles).')),
					el('h2', null, 'Semaphores'),
					el('div', { id: 'semaphores' }, table(['Semaphore', 'Permits held', '#Held', '#Total'].concat(locks.clusterWide ? ['Used by'] : []), (locks.semaphores || []).map(function (used) {
						var semaphore = used.semaphore;
						return el('tr', { 'data-name': semaphore.name, 'data-group': semaphore.group }, el('td', { class: 'text name' }, valueOrHidden(semaphore.name)),
							semaphore.error ? el('td', { class: 'error', colspan: 3 }, semaphore.error) : [
								el('td', null, fillBar(semaphore.total > 0 ? semaphore.held / semaphore.total : 0, semaphore.held > semaphore.total),
									' ' + num(semaphore.held) + ' of ' + num(semaphore.total)),
								el('td', { class: 'num held' }, num(semaphore.held)), el('td', { class: 'num total' }, num(semaphore.total))],
							locks.clusterWide ? el('td', { class: 'text used-by' }, users(used.users)) : null);
					}), locks.clusterWide ? 'No live instance has used a semaphore since it started.' : 'This instance has used no semaphore since it started.')),
					el('h2', null, 'Count-down latches'),
					el('div', { id: 'latches' }, table(['Latch', '#Count left'].concat(locks.clusterWide ? ['Used by'] : []), (locks.latches || []).map(function (used) {
						var latch = used.latch;
						return el('tr', { 'data-name': latch.name }, el('td', { class: 'text name' }, valueOrHidden(latch.name)),
							latch.error ? el('td', { class: 'error' }, latch.error)
								: el('td', { class: 'num count', 'data-count': latch.count }, latch.count === 0 ? 'open' : (latch.count < 0 ? 'not set' : num(latch.count))),
							locks.clusterWide ? el('td', { class: 'text used-by' }, users(used.users)) : null);
					}), locks.clusterWide ? 'No live instance has used a latch since it started.' : 'This instance has used no latch since it started.')),
					el('p', { class: 'muted' }, locks.clusterWide
						? 'Semaphores and latches every live instance used since it started (each names the last 200 in its heartbeat, this one the last 1000 it handed out); their permits and counts are Redis\'s, every instance\'s holders included.'
						: 'Semaphores and latches are those this instance handed out since it started (the last 1000 names); their permits and counts are Redis\'s, every instance\'s holders included.'),
					el('h2', null, 'Scheduled jobs'),
					el('div', { id: 'scheduled-jobs' },
						table(['Job', 'Lock at least / most', 'Last run', 'Ended', 'Outcome', 'Last skip', '#Runs here', '#Skips here', 'In Redis now'],
							jobs, 'This instance has triggered no @ScheduledLock job yet.')),
					el('h2', null, 'Over time'),
					el('div', { class: 'charts' },
						chart('Acquisitions /s by result', lines(series, 'rediskit.lock.acquire', 'rate', null, 'result')),
						chart('Wait for the lock (mean, ms)', lines(series, 'rediskit.lock.acquire', 'mean', { result: 'acquired' }, null)),
						chart('Lost leases /s', lines(series, 'rediskit.lock.lost', 'rate', null, 'lock')),
						chart('Renewals /s by result', lines(series, 'rediskit.lock.renewals', 'rate', null, 'result'))));
			});
		},

		caches: function () {
			return Promise.all([api('caches'), api('metrics?prefix=rediskit.cache.')]).then(function (r) {
				var view = r[0], series = r[1].series;
				if (!view.configured) { return el('section', { id: 'page-caches' }, el('h1', null, 'Caches'), notConfigured('Caches')); }
				var rows = view.descriptor.map(function (cache) {
					var settings = cache.settings || {};
					// This instance's reads since it started, by tier: a hit in the near cache, in Redis, or a miss ('none').
					var gets = lines(series, 'rediskit.cache.gets', 'total', { cache: cache.name }, 'tier');
					var total = {}, all = 0;
					gets.forEach(function (line) {
						var last = line.points.length ? line.points[line.points.length - 1][1] : 0;
						total[line.label] = last;
						all += last;
					});
					var ratio = function (tier) { return all > 0 ? percent((total[tier] || 0) / all) : '–'; };
					var near = settings.nearCache;
					return el('tr', { 'data-name': cache.name },
						el('td', { class: 'text name' }, cache.name),
						el('td', null, duration(settings.ttl)),
						el('td', null, near ? num(cache.nearCacheSize) + ' of ' + num(near.maxEntries) + ' (' + (cache.nearCacheActive ? cache.nearCacheInvalidation : 'bypassed') + ')' : 'off'),
						el('td', null, String(settings.singleFlight || '').toLowerCase()),
						el('td', { class: 'num', 'data-hit-near': '' }, ratio('near')),
						el('td', { class: 'num', 'data-hit-redis': '' }, ratio('redis')),
						el('td', { class: 'num', 'data-miss': '' }, ratio('none')),
						el('td', null, chart('loads and waits /s', lines(series, 'rediskit.cache.loads', 'rate', { cache: cache.name }, 'result')
							.map(function (l) { l.label = 'load ' + l.label; return l; })
							.concat(lines(series, 'rediskit.cache.waits', 'rate', { cache: cache.name }, 'result')
								.map(function (l) { l.label = 'wait ' + l.label; return l; })))),
						session.canAct ? el('td', { class: 'row-actions' }, cacheActions(cache.name)) : null);
				});
				var headers = ['Name', 'TTL', 'Near cache (this instance)', 'Single flight', '#Near hits', '#Redis hits', '#Misses', 'Loads and single-flight waits'];
				if (session.canAct) { headers.push('Actions'); }
				return el('section', { id: 'page-caches' },
					el('h1', null, 'Caches'),
					table(headers, rows, 'No cache is configured or used yet.'),
					el('p', { class: 'muted' }, 'Hit ratios are of this instance\'s reads since it started; loads and waits per second are this instance\'s over the samples it kept; every instance has its own. Settings and actions apply to every instance.'),
					session.canAct ? evictForm(view.descriptor) : el('p', { class: 'muted' }, session.actionsNote));
			});
		},

		leaderboards: function () {
			return api('rankings').then(function (view) {
				var boardList = view.leaderboards.configured ? view.leaderboards.descriptor.leaderboards : [];
				var recentList = view.recentItems.configured ? view.recentItems.descriptor.lists : [];
				var boards = boardList.map(function (board) {
					return el('div', { class: 'card', 'data-leaderboard': board.name },
						el('h3', { class: 'text' }, board.name + ' · ' + num(board.size) + ' members'),
						board.error ? el('p', { class: 'error' }, board.error)
							: table(['#Rank', 'Member', '#Score'], board.top.map(function (entry) {
								return el('tr', null, el('td', { class: 'num' }, num(entry.rank)), el('td', { class: 'text member' }, valueOrHidden(entry.member)),
									el('td', { class: 'num' }, num(entry.score)));
							}), 'No member yet.'));
				});
				var lists = recentList.map(function (list) {
					return el('div', { class: 'card', 'data-recent': list.name },
						el('h3', { class: 'text' }, list.name + ' · ' + num(list.capacity) + ' per user'),
						list.error ? el('p', { class: 'error' }, list.error)
							: table(['Trending', '#Views'], list.trending.map(function (item) {
								return el('tr', null, el('td', { class: 'text item' }, valueOrHidden(item.item)), el('td', { class: 'num' }, num(item.views)));
							}), 'Nothing viewed in the trending period.'));
				});
				return el('section', { id: 'page-leaderboards' },
					el('h1', null, 'Leaderboards'),
					view.leaderboards.configured ? el('div', { class: 'cards' }, boards) : notConfigured('Leaderboards'),
					boardList.length ? lookup('rank', boardList, 'member', 'One member\'s rank in', function (r, member) {
						return r.ranked ? el('span', null, el('span', { class: 'text', id: 'rank-member' }, member), ' is #',
							el('span', { id: 'rank-rank' }, num(r.rank)), ' with ' + num(r.score))
							: el('span', null, el('span', { class: 'text', id: 'rank-member' }, member), ' is not ranked');
					}) : null,
					el('h1', null, 'Recent items'),
					view.recentItems.configured ? el('div', { class: 'cards' }, lists) : notConfigured('Recent-items lists'),
					recentList.length ? lookup('recent', recentList, 'user', 'One user\'s recent items in', function (r, user) {
						return el('span', null, el('span', { class: 'text', id: 'recent-user' }, user), ': ',
							r.items === null ? el('span', { class: 'muted', id: 'recent-hidden' }, num(r.count) + ' items (hidden)')
								: r.items.length ? el('ol', { id: 'recent-items' }, r.items.map(function (item) { return el('li', { class: 'text' }, item); }))
								: 'nothing viewed');
					}) : null);
			});
		},

		limiters: function () {
			return Promise.all([api('limiters'), api('metrics?prefix=rediskit.ratelimit.')]).then(function (r) {
				var limiters = r[0], series = r[1].series;
				if (!limiters.configured) { return el('section', { id: 'page-limiters' }, el('h1', null, 'Rate limiters'), notConfigured('Rate limiters')); }
				var list = limiters.descriptor.limiters;
				var rows = list.map(function (limiter) {
					var decisions = lines(series, 'rediskit.ratelimit.decisions', 'rate', { limiter: limiter.name }, 'result');
					var last = function (label) {
						var line = decisions.filter(function (l) { return l.label === label; })[0];
						return line && line.points.length ? line.points[line.points.length - 1][1] : null;
					};
					return el('tr', { 'data-name': limiter.name },
						el('td', { class: 'text' }, limiter.name),
						limiter.error ? el('td', { class: 'error', colspan: 6 }, limiter.error) : [
							el('td', null, limiter.algorithm),
							el('td', null, num(limiter.limit) + ' per ' + duration(limiter.period) + (limiter.burst ? ', burst ' + num(limiter.burst) : '')),
							el('td', null, limiter.failurePolicy),
							el('td', { class: 'num' }, rate(last('allowed'))),
							el('td', { class: 'num' }, rate(last('rejected'))),
							el('td', null, chart('decisions /s', decisions))]);
				});
				return el('section', { id: 'page-limiters' },
					el('h1', null, 'Rate limiters'),
					table(['Name', 'Algorithm', 'Policy', 'Failure policy', '#Allowed', '#Rejected', 'Decisions over time'], rows,
						'No limiter is configured.'),
					el('p', { class: 'muted' }, 'Rates are per second over the last sample interval; the chart covers the samples kept.'),
					list.length ? lookupForm(list) : null);
			});
		},

		queues: function () {
			var wanted = [api('queues'), api('metrics?prefix=rediskit.queue.')];
			if (state.queue) {
				wanted.push(api('queue?name=' + q(state.queue) + '&page=' + state.page));
			}
			return Promise.all(wanted).then(function (r) {
				var view = r[0], series = r[1].series, detail = r[2];
				if (!view.configured) { return el('section', { id: 'page-queues' }, el('h1', null, 'Queues'), notConfigured('Queues')); }
				var queues = view.descriptor.queues || {}, recurringJobs = view.descriptor.recurring || {};
				var rows = Object.keys(queues).map(function (name) {
					var queue = queues[name];
					return el('tr', { 'data-name': name },
						el('td', { class: 'text' }, el('a', { href: '#queues', onclick: function (e) {
							e.preventDefault(); state.queue = name; state.page = 0; state.confirmPurge = false; state.confirmDelete = null; render();
						} }, name)),
						queue.error ? el('td', { class: 'error', colspan: 8 }, queue.error) : [
							el('td', { class: 'num' }, num(queue.delayed)), el('td', { class: 'num' }, num(queue.ready)),
							el('td', { class: 'num' }, num(queue.inFlight)), el('td', { class: 'num', 'data-dead': queue.dead }, num(queue.dead)),
							el('td', { class: 'num' }, millis(queue.oldestDueAgeMillis)),
							el('td', { 'data-paused': String(queue.paused) }, queue.paused ? 'paused' : 'running'),
							el('td', { class: 'text more' }, more(queue, QUEUE_FIELDS)),
							el('td', null, chart('messages by state', lines(series, 'rediskit.queue.messages', 'value', { queue: name }, 'state')))]);
				});
				var recurring = Object.keys(recurringJobs).map(function (name) {
					var job = recurringJobs[name];
					return el('tr', { 'data-name': name }, el('td', { class: 'text' }, name), el('td', { class: 'text' }, job.queue),
						el('td', null, /^every /.test(job.schedule) ? 'every ' + duration(job.schedule.substring(6)) : job.schedule), el('td', null, job.zone), el('td', null, String(job.missedSlots || '').toLowerCase().replace(/_/g, '-')),
						el('td', null, time(job.lastSlot)),
						el('td', { class: 'text taken-by' }, job.lastSlot ? (job.lastSlotTakenBy || el('span', { class: 'muted' }, 'unknown')) : '–'),
						el('td', null, job.paused ? 'paused' : time(job.nextSlot)),
						el('td', { 'data-paused': String(job.paused) }, job.paused === null || job.paused === undefined ? 'unknown' : (job.paused ? 'paused' : 'running')),
						el('td', { class: 'text more' }, more(job, RECURRING_FIELDS)),
						session.canAct ? el('td', { class: 'row-actions' }, recurringActions(name, job.paused)) : null);
				});
				var section = el('section', { id: 'page-queues' },
					el('h1', null, 'Queues'),
					table(['Name', '#Delayed', '#Ready', '#In flight', '#Dead', '#Oldest due', 'Paused', 'More', 'Counts over time'], rows,
						'No queue is configured.'),
					el('h2', null, 'Throughput and lateness'),
					el('div', { class: 'charts' },
						chart('Delivered /s by queue', lines(series, 'rediskit.queue.delivered', 'rate', null, 'queue')),
						chart('Acknowledged /s by queue', lines(series, 'rediskit.queue.acked', 'rate', null, 'queue')),
						chart('Dead-lettered /s by queue', lines(series, 'rediskit.queue.dead.lettered', 'rate', null, 'queue')),
						latenessChart(series)),
					el('h2', null, 'Recurring jobs'),
					el('div', { id: 'recurring' }, table(['Name', 'Queue', 'Schedule', 'Zone', 'Missed slots', 'Last slot', 'Taken by', 'Next run', 'State', 'More']
						.concat(session.canAct ? ['Actions'] : []), recurring, 'No recurring job.')),
					el('p', { class: 'muted' }, 'Last slot and next run as this instance knows them; taken by: the instance that enqueued the last slot (or passed it over), unknown when an older version took it; its run is the queue\'s, on whichever instance claims it. Pause and trigger apply on every instance. A paused job passes its due slots over: resuming starts with the next one.'));
				if (detail) {
					section.appendChild(batchesAndGroups(detail));
					section.appendChild(queueDetail(detail));
				}
				return section;
			});
		},

		structures: function () {
			return api('structures').then(function (s) {
				var filterList = s.bloom.configured ? s.bloom.descriptor.filters : [];
				var counted = s.counters.configured ? s.counters.descriptor : { countersConfigured: false, counters: [], bitmapsConfigured: false, calendars: [], activities: [] };
				var indexes = s.geo.configured ? s.geo.descriptor.indexes : [];
				var generators = (s.ids.configured ? s.ids.descriptor.generators : []).map(function (g) {
					return el('tr', { 'data-name': g.name }, el('td', { class: 'text' }, g.name),
						g.error ? el('td', { class: 'error', colspan: 2 }, g.error) : [el('td', { class: 'num' }, num(g.blockSize)),
							el('td', { class: 'num', 'data-reserved': g.reserved }, num(g.reserved))]);
				});
				var layers = [];
				var filters = filterList.map(function (f) {
					if (f.error || !f.info) { return el('tr', { 'data-name': f.name }, el('td', { class: 'text' }, f.name), el('td', { class: 'error', colspan: 9 }, f.error || 'not readable')); }
					var info = f.info, growing = info.layers && info.layers.length > 0;
					var over = info.layers && info.layers.length ? info.estimatedFalsePositiveRate > info.falsePositiveRate : info.approximateItems > info.expectedInsertions;
					if (growing) {
						info.layers.forEach(function (layer, i) { layers.push({ filter: f.name, index: i + 1, layer: layer }); });
					}
					return el('tr', { 'data-name': f.name }, el('td', { class: 'text' }, f.name), el('td', null, String(info.mode).toLowerCase()),
						el('td', { class: 'num size', title: num(info.bits) + ' bits' }, bytes(Math.ceil(info.bits / 8))), el('td', { class: 'num' }, num(info.hashes)),
						el('td', { class: 'num' }, num(info.approximateItems) + ' / ' + num(info.expectedInsertions)),
						el('td', null, fillBar(info.fillRatio, over), ' ', percent(info.fillRatio)),
						el('td', { class: 'num' }, percent(info.falsePositiveRate)),
						el('td', { class: over ? 'num error' : 'num' }, percent(info.estimatedFalsePositiveRate)),
						el('td', { class: 'num', 'data-layers': growing ? info.layers.length : 0 }, growing ? num(info.layers.length) : '–'),
						el('td', { class: f.complete ? null : 'error', 'data-complete': String(f.complete),
							title: 'Complete: seeded with every item and not lost since, so that "never seen" is trusted' },
							f.complete ? 'yes' : (f.seeded ? 'no (seeded from its source on the next check)' : 'no (call seed)')));
				});
				var layerRows = layers.map(function (entry) {
					var layer = entry.layer;
					return el('tr', { 'data-filter': entry.filter, 'data-layer': entry.index },
						el('td', { class: 'text' }, entry.filter), el('td', { class: 'num' }, num(entry.index)),
						el('td', { class: 'num' }, num(layer.items) + ' / ' + num(layer.capacity)),
						el('td', { class: 'num size', title: num(layer.bits) + ' bits' }, bytes(Math.ceil(layer.bits / 8))),
						el('td', { class: 'num' }, num(layer.hashes)), el('td', null, fillBar(layer.fillRatio, layer.items > layer.capacity), ' ', percent(layer.fillRatio)),
						el('td', { class: 'num' }, percent(layer.falsePositiveRate)));
				});
				var counters = counted.counters.map(function (c) {
					return el('tr', { 'data-name': c.name }, el('td', { class: 'text' }, c.name),
						c.error ? el('td', { class: 'error', colspan: 4 }, c.error) : [el('td', null, c.bucket), el('td', null, c.zone),
							el('td', null, c.retention ? duration(c.retention) : 'forever'), el('td', { class: 'num' }, num(c.count))]);
				});
				var calendars = counted.calendars.map(function (c) {
					return el('tr', { 'data-name': c.name }, el('td', { class: 'text' }, c.name),
						c.error ? el('td', { class: 'error', colspan: 2 }, c.error) : [el('td', null, c.zone), el('td', null, c.retention ? duration(c.retention) : 'forever')]);
				});
				var activities = counted.activities.map(function (a) {
					return el('tr', { 'data-name': a.name }, el('td', { class: 'text' }, a.name),
						a.error ? el('td', { class: 'error', colspan: 3 }, a.error) : [el('td', null, a.zone), el('td', null, a.retention ? duration(a.retention) : 'forever'),
							el('td', { class: 'num', 'data-active-today': a.activeToday }, num(a.activeToday))]);
				});
				var geo = indexes.map(function (g) {
					return el('tr', { 'data-name': g.name }, el('td', { class: 'text' }, g.name),
						g.error ? el('td', { class: 'error', colspan: 5 }, g.error) : [el('td', null, g.sharding + (g.sharding === 'geohash-cell' ? ' (' + g.precision + ' bits)' : '')),
							el('td', null, g.memberTtl ? duration(g.memberTtl) : 'none'), el('td', { class: 'num' }, meters(g.maxRadiusMeters)), el('td', { class: 'num' }, num(g.maxLimit)),
							el('td', { class: 'num', 'data-members': g.members }, g.members === null ? 'per region' : num(g.members))]);
				});
				return el('section', { id: 'page-structures' },
					el('h1', null, 'Bloom filters, counters, calendars, geo, ids'),
					el('h2', null, 'Bloom filters'),
					s.bloom.configured ? table(['Name', 'Mode', '#Size', '#Hashes', '#Items / sized for', 'Fill', '#Configured FP rate', '#Estimated FP rate now', '#Layers', 'Complete'], filters, 'No Bloom filter.') : notConfigured('Bloom filters'),
					layerRows.length ? el('div', { id: 'bloom-layers' }, el('h3', null, 'Layers of growing filters, oldest first'),
						table(['Filter', '#Layer', '#Items / capacity', '#Size', '#Hashes', 'Fill', '#FP rate'], layerRows, '')) : null,
					el('h2', null, 'Unique counters'),
					counted.countersConfigured ? table(['Name', 'Bucket', 'Zone', 'Retention', '#Count (all time)'], counters, 'No unique counter.') : notConfigured('Unique counters'),
					el('h2', null, 'Check-in calendars'),
					counted.bitmapsConfigured ? table(['Name', 'Zone', 'Retention'], calendars, 'No check-in calendar.') : notConfigured('Check-in calendars'),
					counted.bitmapsConfigured && calendars.length ? el('p', { class: 'muted' }, 'A calendar keeps one key per user and month, so counting its check-ins would be a scan; daily activities count theirs below.') : null,
					el('h2', null, 'Daily activities'),
					counted.bitmapsConfigured ? table(['Name', 'Zone', 'Retention', '#Active today'], activities, 'No daily activity.') : notConfigured('Daily activities'),
					el('h2', null, 'Geo indexes'),
					s.geo.configured ? table(['Name', 'Sharding', 'Member TTL', '#Max radius', '#Max results', '#Members'], geo, 'No geo index.') : notConfigured('Geo indexes'),
					el('h2', null, 'Id generators'),
					s.ids.configured ? el('div', { id: 'ids' }, table(['Name', '#Block size', '#Reserved up to'], generators, 'No id generator.'),
						el('p', { class: 'muted' }, 'Reserved up to: the last id of the last block any instance reserved; every id handed out is at most this, and the rest of a block an instance did not use is a gap.'))
						: notConfigured('Id generators'));
			});
		},

		keys: function () {
			return api('keys/settings').then(function (settings) {
				var section = el('section', { id: 'page-keys' },
					el('h1', null, 'Keys'),
					el('p', null, 'Eviction policy: ', el('strong', null, settings.maxmemoryPolicy || 'unknown')),
					settings.warnings.length
						? settings.warnings.map(function (w) { return el('div', { class: 'warning' }, w); })
						: el('p', { class: 'muted' }, 'No warning about the server settings.'),
					el('h2', null, 'Big keys'));
				if (!settings.reportAvailable) {
					section.appendChild(el('p', { class: 'muted' }, 'The key tools are not configured.'));
					return section;
				}
				section.appendChild(el('div', { class: 'toolbar' },
					el('button', { id: 'run-report', disabled: state.reportRunning, onclick: runReport },
						state.reportRunning ? 'Scanning…' : 'Run the big-key report'),
					el('span', { class: 'muted' }, 'Paced by redis-kit.keys.report.keys-per-second; it never blocks Redis.')));
				if (state.reportError) {
					section.appendChild(el('p', { class: 'error' }, state.reportError));
				}
				var report = state.report;
				if (report) {
					section.appendChild(el('p', null, num(report.keysScanned) + ' keys scanned in ' + duration(report.elapsed) + '.'));
					section.appendChild(table(['Key', 'Type', '#Memory', '#Elements', '#TTL', 'Encoding'],
						report.largestByMemory.map(function (k) {
							return el('tr', { 'data-key': k.key }, el('td', { class: 'text' }, k.key), el('td', null, k.type),
								el('td', { class: 'num' }, bytes(k.memoryBytes)), el('td', { class: 'num' }, num(k.elements)),
								el('td', { class: 'num' }, k.ttlMillis < 0 ? 'none' : millis(k.ttlMillis)), el('td', null, k.encoding));
						}), 'No key matched.'));
					section.appendChild(el('h2', null, 'Totals by type'));
					section.appendChild(table(['Type', '#Keys', '#Memory', '#Elements'], Object.keys(report.totalsByType).map(function (type) {
						var t = report.totalsByType[type];
						return el('tr', null, el('td', null, type), el('td', { class: 'num' }, num(t.keys)), el('td', { class: 'num' }, bytes(t.memoryBytes)), el('td', { class: 'num' }, num(t.elements)));
					}), 'None.'));
				}
				return section;
			});
		}
	};

	// One key's state, read without taking a permit; the result stays until the next lookup.
	function lookupForm(limiters) {
		var lookup = state.lookup;
		if (!lookup.name || !limiters.some(function (l) { return l.name === lookup.name; })) {
			lookup.name = limiters[0].name;
		}
		var select = el('select', { id: 'lookup-limiter' });
		limiters.forEach(function (l) {
			select.appendChild(el('option', { value: l.name, selected: l.name === lookup.name }, l.name));
		});
		select.addEventListener('change', function () { lookup.name = select.value; });
		var key = el('input', { id: 'lookup-key', type: 'text', maxlength: 1024, placeholder: 'key, such as user:42',
			value: lookup.key, oninput: function () { lookup.key = key.value; } });
		var run = function (e) {
			e.preventDefault();
			lookup.name = select.value;
			lookup.key = key.value;
			var asked = lookup.key;
			api('limiter?name=' + q(lookup.name) + '&key=' + q(asked)).then(function (r) {
				// The answer does not repeat the key (user input): the page shows the one it asked about.
				lookup.result = r;
				lookup.asked = asked;
				lookup.error = null;
			}, function (error) {
				lookup.result = null;
				lookup.error = error.message;
			}).then(function () {
				key.blur();
				render();
			});
		};
		var form = el('form', { id: 'lookup', class: 'toolbar' }, el('span', null, 'Look up a key in'), select, key,
			el('button', { id: 'lookup-run', type: 'submit' }, 'Look up'));
		form.addEventListener('submit', run);
		var result = null;
		if (lookup.error) {
			result = el('p', { id: 'lookup-result', class: 'error' }, lookup.error);
		}
		else if (lookup.result) {
			var r = lookup.result;
			result = el('p', { id: 'lookup-result' },
				'Key ', el('code', { class: 'text', id: 'lookup-result-key' }, lookup.asked), ' of ', r.limiter, ' (' + r.algorithm + '): ',
				el('strong', { id: 'lookup-remaining' }, num(r.remaining) + ' of ' + num(r.limit)), ' remaining; ',
				r.retryAfterMillis > 0 ? 'the next permit in ' + millis(r.retryAfterMillis) : 'a permit is free now',
				'; ' + (r.resetAfterMillis > 0 ? 'full again in ' + millis(r.resetAfterMillis) : 'at full capacity') + '.');
		}
		return el('div', { id: 'limiter-lookup' }, el('h2', null, 'Look up one key'), form, result,
			el('p', { class: 'muted' }, 'Read without taking a permit: the state a request made now would be told.'));
	}

	function latenessChart(series) {
		var percentile = function (field) {
			var found = lines(series, 'rediskit.queue.lateness', field, null, null);
			return { label: field, points: found.length ? found[0].points : [] };
		};
		var card = chart('Lateness p50 / p95 / p99 (ms)', [percentile('p50'), percentile('p95'), percentile('p99')]);
		if (!card.querySelector('polyline')) {
			card.appendChild(el('p', { class: 'muted' }, 'Percentiles need management.metrics.distribution.percentiles.'
				+ 'rediskit.queue.lateness=0.5,0.95,0.99, or a registry that keeps histograms (Prometheus).'));
		}
		return card;
	}

	function queueDetail(detail) {
		var canAct = session.canAct;
		var rows = detail.deadLetters.map(function (letter) {
			return el('tr', { 'data-id': letter.id },
				el('td', { class: 'text' }, letter.id),
				el('td', { class: 'text reason' }, letter.reason),
				el('td', { class: 'num' }, num(letter.deliveries)),
				el('td', { class: 'text priority' }, letter.priority),
				el('td', null, time(letter.deadLetteredAt)),
				el('td', { class: 'text payload' }, detail.showPayloads ? letter.payload : el('span', { class: 'muted' }, bytes(letter.payloadBytes) + ' (hidden)')),
				canAct ? el('td', { class: 'row-actions' }, letterActions(detail.name, letter.id)) : null);
		});
		var max = el('input', { id: 'redrive-max', type: 'number', min: 1, max: 10000, value: 1 });
		var toolbar = el('div', { class: 'toolbar' });
		if (canAct) {
			toolbar.appendChild(el('span', null, 'Redrive the oldest'));
			toolbar.appendChild(max);
			toolbar.appendChild(el('button', { id: 'redrive', onclick: function () {
				act('queue/redrive?name=' + q(detail.name) + '&max=' + q(max.value)).then(function (r) {
					notice('Redrove ' + r.redriven + ' dead letter(s) of ' + detail.name + '.');
					render();
				}, fail);
			} }, 'Redrive'));
			toolbar.appendChild(state.confirmPurge
				? el('button', { id: 'purge-confirm', class: 'danger', onclick: function () {
					state.confirmPurge = false;
					act('queue/purge?name=' + q(detail.name)).then(function (r) {
						notice('Purged ' + r.purged + ' message(s) of ' + detail.name + '.');
						render();
					}, fail);
				} }, 'Really purge every message of ' + detail.name + '?')
				: el('button', { id: 'purge', class: 'danger', onclick: function () { state.confirmPurge = true; render(); } }, 'Purge…'));
			toolbar.appendChild(detail.stats.paused
				? el('button', { id: 'resume', onclick: function () {
					act('queue/resume?name=' + q(detail.name)).then(function () {
						notice('Resumed ' + detail.name + ' on every instance.');
						render();
					}, fail);
				} }, 'Resume')
				: el('button', { id: 'pause', onclick: function () {
					act('queue/pause?name=' + q(detail.name)).then(function () {
						notice('Paused ' + detail.name + ' on every instance: messages in flight finish, no new one starts.');
						render();
					}, fail);
				} }, 'Pause'));
		}
		else {
			toolbar.appendChild(el('span', { class: 'muted' }, session.actionsNote));
		}
		var pager = el('div', { class: 'toolbar' },
			el('button', { id: 'page-prev', disabled: detail.page === 0, onclick: function () { state.page--; render(); } }, '‹ Newer'),
			el('span', null, 'Page ' + (detail.page + 1)),
			el('button', { id: 'page-next', disabled: detail.deadLetters.length < detail.pageSize || (detail.page + 1) * detail.pageSize >= detail.listedAtMost,
				onclick: function () { state.page++; render(); } }, 'Older ›'));
		return el('div', { id: 'queue-detail', 'data-name': detail.name },
			el('h2', null, 'Dead letters of ', detail.name, ' (' + num(detail.stats.dead) + ')'),
			toolbar,
			table(['Id', 'Reason', '#Deliveries', 'Priority', 'Dead-lettered', 'Payload'].concat(canAct ? ['Actions'] : []), rows, 'No dead letter.'),
			pager);
	}

	// A queue's batches in progress and busiest groups, as the rediskitqueue endpoint describes them; ids and group
	// names are the application's data, shown as text.
	function batchesAndGroups(detail) {
		var batches = detail.batches.map(function (batch) {
			var done = batch.succeeded + batch.failed;
			var state = batch.failed > 0 ? 'running, ' + num(batch.failed) + ' died' : (done > 0 ? 'running' : 'waiting');
			return el('tr', { 'data-id': batch.id },
				el('td', { class: 'text id' }, batch.id),
				el('td', null, fillBar(batch.total > 0 ? done / batch.total : 0, batch.failed > 0),
					' ' + num(done) + ' of ' + num(batch.total)),
				el('td', { class: 'num succeeded' }, num(batch.succeeded)), el('td', { class: 'num died' }, num(batch.failed)),
				el('td', { class: 'num total' }, num(batch.total)), el('td', { class: 'state' }, state), el('td', null, time(batch.createdAt)));
		});
		var groups = detail.groups.map(function (group) {
			var limited = group.maxInFlight > 0;
			return el('tr', { 'data-group': group.group },
				el('td', { class: 'text name' }, valueOrHidden(group.group)),
				el('td', { class: 'num ready' }, num(group.ready)),
				el('td', { class: 'in-flight' }, limited ? [fillBar(group.inFlight / group.maxInFlight, group.inFlight >= group.maxInFlight),
					' ' + num(group.inFlight) + ' of ' + num(group.maxInFlight)] : num(group.inFlight) + ' (no limit)'),
				el('td', { class: 'rate' }, group.rateLimit > 0 ? num(group.rateLimit) + ' per ' + duration(group.rateLimitPeriod) : 'no limit'));
		});
		return el('div', { id: 'queue-parts', 'data-name': detail.name },
			el('h2', null, 'Batches in progress of ', detail.name, ' (' + num(detail.stats.batchesInProgress) + ')'),
			el('div', { id: 'batches' }, table(['Batch', 'Progress (done of total)', '#Succeeded', '#Died', '#Total', 'State', 'Enqueued'], batches,
				'No batch in progress.')),
			detail.groups.length ? el('h2', null, 'Groups of ', detail.name, ', most ready first') : null,
			detail.groups.length ? el('div', { id: 'groups' }, table(['Group', '#Waiting', 'In flight of limit', 'Rate limit'], groups, ''),
				el('p', { class: 'muted' }, 'The ' + num(detail.groups.length) + ' groups with the most messages waiting for their turn; limits are the queue\'s, per group across every instance.')) : null);
	}

	// Redrive or delete one dead letter; deleting asks twice, like purge.
	function letterActions(name, id) {
		var redrive = el('button', { class: 'redrive-one', onclick: function () {
			act('queue/redrive-dead-letter?name=' + q(name) + '&id=' + q(id)).then(function (r) {
				notice(r.redriven ? 'Redrove dead letter ' + id + ' of ' + name + '.' : 'Dead letter ' + id + ' was gone already.');
				render();
			}, fail);
		} }, 'Redrive');
		var remove = state.confirmDelete === id
			? el('button', { class: 'delete-one-confirm danger', onclick: function () {
				state.confirmDelete = null;
				act('queue/delete-dead-letter?name=' + q(name) + '&id=' + q(id)).then(function (r) {
					notice(r.deleted ? 'Deleted dead letter ' + id + ' of ' + name + '.' : 'Dead letter ' + id + ' was gone already.');
					render();
				}, fail);
			} }, 'Really delete?')
			: el('button', { class: 'delete-one danger', onclick: function () { state.confirmDelete = id; render(); } }, 'Delete…');
		return [redrive, ' ', remove];
	}

	// Pause or resume a recurring job on every instance, or run it once now.
	function recurringActions(name, paused) {
		var toggle = paused
			? el('button', { class: 'resume-recurring', onclick: function () {
				act('recurring/resume?name=' + q(name)).then(function () {
					notice('Resumed recurring job ' + name + ' on every instance.');
					render();
				}, fail);
			} }, 'Resume')
			: el('button', { class: 'pause-recurring', onclick: function () {
				act('recurring/pause?name=' + q(name)).then(function () {
					notice('Paused recurring job ' + name + ' on every instance: its due slots are passed over.');
					render();
				}, fail);
			} }, 'Pause');
		var trigger = el('button', { class: 'trigger-recurring', onclick: function () {
			act('recurring/trigger?name=' + q(name)).then(function (r) {
				notice('Triggered recurring job ' + name + ': message ' + r.triggered + '.');
				render();
			}, fail);
		} }, 'Run now');
		return [toggle, ' ', trigger];
	}

	function runReport() {
		state.reportRunning = true;
		state.reportError = null;
		render();
		api('keys/report').then(function (report) {
			state.report = report;
		}, function (error) {
			state.reportError = error.message;
		}).then(function () {
			state.reportRunning = false;
			render();
		});
	}

	function cacheActions(name) {
		if (state.confirmClear === name) {
			return el('button', { class: 'danger clear-confirm', onclick: function () {
				state.confirmClear = null;
				act('cache/clear?name=' + q(name)).then(function () {
					notice('Cleared every entry of cache ' + name + ', near caches included.');
					render();
				}, fail);
			} }, 'Really clear ' + name + '?');
		}
		return el('button', { class: 'danger clear', onclick: function () { state.confirmClear = name; render(); } }, 'Clear…');
	}

	function evictForm(caches) {
		if (caches.length === 0) {
			return null;
		}
		var select = el('select', { id: 'evict-cache' }, caches.map(function (c) { return el('option', { value: c.name }, c.name); }));
		var key = el('input', { id: 'evict-key', type: 'text', maxlength: 1024, placeholder: 'key, as the cache stores it' });
		return el('div', { class: 'toolbar' }, el('span', null, 'Evict one entry of'), select, key,
			el('button', { id: 'evict-run', onclick: function () {
				var cache = select.value, wanted = key.value;
				act('cache/evict?name=' + q(cache) + '&key=' + q(wanted)).then(function (r) {
					notice(r.evicted ? 'Evicted the entry from cache ' + cache + ', near caches included.' : 'Cache ' + cache + ' had no such entry.');
					document.activeElement.blur();
					render();
				}, fail);
			} }, 'Evict'));
	}

	// A read-only lookup form (a member's rank, a user's recent items) whose result stays across re-renders.
	function lookup(kind, items, field, label, show) {
		var current = state[kind] || { name: items[0].name, value: '', result: null, error: null };
		var select = el('select', { id: kind + '-name' }, items.map(function (item) {
			return el('option', { value: item.name, selected: item.name === current.name }, item.name);
		}));
		var input = el('input', { id: kind + '-value', type: 'text', maxlength: 1024, placeholder: field, value: current.value });
		var path = kind === 'rank' ? 'rank?name=' : 'recent?name=';
		return el('div', { class: 'toolbar', id: kind + '-lookup' }, el('span', null, label), select, input,
			el('button', { id: kind + '-run', onclick: function () {
				var wanted = { name: select.value, value: input.value, result: null, error: null };
				api(path + q(wanted.name) + '&' + field + '=' + q(wanted.value)).then(function (r) {
					wanted.result = r;
				}, function (error) {
					wanted.error = error.message;
				}).then(function () {
					state[kind] = wanted;
					document.activeElement.blur();
					render();
				});
			} }, 'Look up'),
			current.error ? el('span', { class: 'error' }, current.error) : null,
			current.result ? el('div', { id: kind + '-result' }, show(current.result, current.value)) : null);
	}

	function notice(text) {
		var box = document.getElementById('notice');
		box.textContent = text;
		box.hidden = false;
	}

	function fail(error) {
		notice('Refused: ' + error.message);
		render();
	}

	function current() {
		var page = (location.hash || '#overview').substring(1);
		return pages[page] ? page : 'overview';
	}

	function render() {
		var page = current();
		document.querySelectorAll('#nav a').forEach(function (a) {
			a.classList.toggle('active', a.getAttribute('data-page') === page);
		});
		return pages[page]().then(function (content) {
			var main = document.getElementById('main');
			main.replaceChildren(content);
			document.getElementById('updated').textContent = 'Updated ' + new Date().toLocaleTimeString();
			document.body.setAttribute('data-rendered', page);
		}, function (error) {
			var main = document.getElementById('main');
			main.replaceChildren(el('p', { class: 'error' }, 'Cannot load this page: ' + error.message));
			document.body.setAttribute('data-rendered', page);
		});
	}

	function schedule() {
		clearInterval(timer);
		timer = setInterval(function () {
			// Do not rebuild the page under a pending confirmation, or while someone types in one of its fields.
			var typing = document.activeElement && document.activeElement.closest && document.activeElement.closest('#main input, #main select');
			if (!state.confirmPurge && state.confirmDelete === null && state.confirmClear === null && !typing && !document.hidden) {
				render();
			}
		}, POLL_MILLIS);
	}

	window.addEventListener('hashchange', function () {
		document.getElementById('notice').hidden = true;
		state.confirmPurge = false;
		state.confirmDelete = null;
		state.confirmClear = null;
		render();
	});

	api('session').then(function (s) {
		session = s;
		document.getElementById('who').textContent = (s.user ? s.user + ' · ' : '') + (s.canAct ? 'actions enabled' : 'read-only');
		return api('metrics?prefix=rediskit.');
	}).then(function (metrics) {
		if (metrics && metrics.intervalMillis) {
			POLL_MILLIS = Math.max(1000, Math.min(metrics.intervalMillis, 30000));
		}
		render();
		schedule();
	}, function (error) {
		document.getElementById('main').replaceChildren(el('p', { class: 'error' }, 'Cannot open the console: ' + error.message));
		document.body.setAttribute('data-rendered', 'error');
	});
})();
