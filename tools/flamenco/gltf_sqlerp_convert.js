// SPDX-License-Identifier: GPL-3.0-or-later
//
// Flamenco 3 job type: add EXT_animation_sqlerp CUBICSLERP samplers to a list of glTF files,
// one task per file, each running the glTF Sqlerp extension's launcher on a worker:
//
//   {blender} {blenderArgs} --factory-startup --python <launcher> -- convert-file IN OUT --tolerance T
//
// Install: copy this file into the `scripts/` folder beside the Flamenco Manager executable and
// restart the Manager (it reads custom job types from there at start). See docs/manual/command-line.md,
// "On a render farm", of the gltf_sqlerp extension.
//
// A task skips a file whose output is newer than its input (so a re-queued or resubmitted job
// redoes only what is missing), writes atomically (never a half-written output) and fails with
// exit code 1 on an invalid file (its error code and JSON pointer are in the task log) without
// stopping the other tasks.

const JOB_TYPE = {
  label: "glTF Sqlerp Convert",
  description: "Add CUBICSLERP rotation samplers (EXT_animation_sqlerp) to glTF files, one task per file",
  settings: [
    {
      key: "launcher",
      type: "string",
      subtype: "file_path",
      required: true,
      description: "pipeline_run.py of the gltf_sqlerp extension, as the workers see it " +
        "(e.g. {shared}/gltf_sqlerp/pipeline_run.py)",
    },
    {
      key: "input_dir",
      type: "string",
      subtype: "dir_path",
      required: true,
      description: "Folder holding the glTF files, as the workers see it",
    },
    {
      key: "output_dir",
      type: "string",
      subtype: "dir_path",
      required: true,
      description: "Folder to write the converted files to (same relative paths)",
    },
    {
      key: "files",
      type: "string",
      required: true,
      description: "The .gltf/.glb files to convert, relative to input_dir, separated by " +
        "semicolons or new lines",
    },
    {
      key: "tolerance",
      type: "float",
      default: 0.01,
      description: "Largest angle (degrees) between the CUBICSLERP curve and the LINEAR one",
    },
    {
      key: "min_ratio",
      type: "float",
      default: 1.0,
      description: "Convert a channel only when it needs at most 1/ratio of its keys",
    },
  ],
};

function compileJob(job) {
  const settings = job.settings;
  const files = String(settings.files)
    .split(/[;\n]/)
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  if (files.length === 0) {
    throw "no files to convert: fill in the 'files' setting";
  }
  const tolerance = String(settings.tolerance === undefined ? 0.01 : settings.tolerance);
  const minRatio = String(settings.min_ratio === undefined ? 1.0 : settings.min_ratio);
  for (const name of files) {
    const task = author.Task(`convert ${name}`, "blender");
    task.addCommand(
      author.Command("blender-render", {
        exe: "{blender}",
        exeArgs: "{blenderArgs}",
        argsBefore: ["--factory-startup"],
        blendfile: "",
        args: [
          "--python", settings.launcher,
          "--",
          "convert-file", joinPath(settings.input_dir, name), joinPath(settings.output_dir, name),
          "--tolerance", tolerance,
          "--min-ratio", minRatio,
        ],
      })
    );
    job.addTask(task);
  }
}

function joinPath(folder, name) {
  return String(folder).replace(/[\\/]+$/, "") + "/" + name;
}
