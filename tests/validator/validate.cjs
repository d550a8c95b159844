#!/usr/bin/env node
// Validate glTF files with the pinned Khronos glTF-Validator (npm `gltf-validator`, see package.json).
//
//   node validate.cjs FILE.gltf|FILE.glb ...
//
// Prints one JSON array on stdout: the validator's report for each file, in argument order (the
// object validateBytes resolves to: issues.numErrors, issues.messages[{code, severity, pointer,
// message}], info, ...). Every issue is reported (no limit, nothing ignored, default severities).
// External resources (.bin, images) are read from the file's folder, so .gltf files with external
// buffers are validated completely. Exit code 0 when every file was validated, whatever the reports
// say; 2 on bad usage, a missing package or a file the validator cannot read at all.
//
// The package is loaded from the node_modules folder named by GLTF_SQLERP_VALIDATOR (dev.py sets it
// to <repository>/.node/node_modules, where it installs the pinned version), by default that folder.

"use strict";

const fs = require("fs");
const path = require("path");

const modules = process.env.GLTF_SQLERP_VALIDATOR
    || path.resolve(__dirname, "..", "..", ".node", "node_modules");

function fail(message) {
    process.stderr.write(`validate.cjs: ${message}\n`);
    process.exit(2);
}

function loadValidator() {
    try {
        return require(path.join(modules, "gltf-validator"));
    } catch (error) {
        fail(`cannot load gltf-validator from ${modules} (${error.message}); ` +
             "`python dev.py test` installs it there");
    }
}

function readExternal(file) {
    const folder = path.dirname(path.resolve(file));
    // The validator passes the URI as written in the file (data: URIs it decodes itself).
    return (uri) => new Promise((resolve, reject) => {
        fs.readFile(path.resolve(folder, decodeURIComponent(uri)), (error, data) => {
            if (error) {
                reject(error.toString());
            } else {
                resolve(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
            }
        });
    });
}

async function validate(validator, file) {
    let data;
    try {
        data = fs.readFileSync(file);
    } catch (error) {
        fail(`cannot read ${file}: ${error.message}`);
    }
    try {
        return await validator.validateBytes(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), {
            uri: file,
            maxIssues: 0,           // unlimited
            ignoredIssues: [],
            writeTimestamp: false,  // reports of the same file are identical
            externalResourceFunction: readExternal(file),
        });
    } catch (error) {
        // A rejection means the validator could not even tell glTF from GLB.
        fail(`glTF-Validator could not validate ${file}: ${error}`);
    }
}

async function main(files) {
    if (files.length === 0) {
        fail("usage: node validate.cjs FILE.gltf|FILE.glb ...");
    }
    const validator = loadValidator();
    const reports = [];
    for (const file of files) {
        reports.push(await validate(validator, file));
    }
    process.stdout.write(JSON.stringify(reports) + "\n");
}

main(process.argv.slice(2)).catch((error) => fail(String(error && error.stack || error)));
