// Preloaded into Portkey's gateway by cmd/loadgen (node --require): its
// start script listens on every interface of its port, and the harness
// serves on loopback only, so a listen call that names no host gets
// 127.0.0.1.
'use strict';
const net = require('node:net');
const HOST = '127.0.0.1';
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (first !== null && typeof first === 'object') {
    if (first.port !== undefined && first.path === undefined && !first.host) {
      args[0] = { ...first, host: HOST };
    }
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (args.length === 1 || args[1] === undefined || args[1] === null) {
      args[1] = HOST;
    } else if (typeof args[1] !== 'string') {
      args.splice(1, 0, HOST);
    }
  }
  return listen.apply(this, args);
};
