"""``OwnedCollect``: nbgrader's ``collect``, taking only what each learner submitted.

nbgrader's exchange lets every account write into the course's ``inbound/`` folder (mode
``1777``), and its collect trusts the names there: a folder called ``bob+minitorch+<time>``
becomes Bob's submission whoever made it (nbgrader only warns), its time is whatever the
name and ``timestamp.txt`` say, and the copy follows symbolic links with the instructor's
rights. Here, with nbgrader's own choices otherwise kept (latest submission, ``--update``,
``--before-duedate``, the course's ignore and size settings):

* a submission counts only when the learner's own account owns its folder; others are
  left in the exchange with a warning, and never hide a genuine one;
* only regular files and folders are copied, never followed links or special files;
* the time it was handed in is never earlier than the last change the system recorded in
  it (``st_ctime``, which no account can set back): a backdated ``timestamp.txt`` or a
  submission changed after it was made is taken as made at that change.
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import os
import pwd
import shutil
import stat

from nbgrader.exchange.default.collect import ExchangeCollect

SLACK = dt.timedelta(minutes=2)  # a submission's own copying takes seconds


class OwnedCollect(ExchangeCollect):
    src_records: list[dict]   # set by nbgrader's ExchangeCollect.init_src; narrowed in copy_files

    def _path_to_record(self, path):
        record = super()._path_to_record(path)
        try:
            info = os.lstat(path)
            owner = pwd.getpwuid(info.st_uid).pw_name
        except (OSError, KeyError):
            info, owner = None, "unknown"
        record["owner"] = owner
        record["genuine"] = info is not None and stat.S_ISDIR(info.st_mode) and owner == record["username"]
        return record

    def _sort_by_timestamp(self, records):
        return sorted(records, key=lambda r: (r.get("genuine", False), r["timestamp"]), reverse=True)

    def copy_files(self):
        kept = []
        for record in self.src_records:
            if record.get("genuine"):
                kept.append(record)
            else:
                self.log.warning("not collected: %s claims to be from %s but belongs to the account %s; it stays in "
                                 "the exchange", record["filename"], record["username"], record["owner"])
        self.src_records = kept
        super().copy_files()

    def do_copy(self, src, dest, log=None):
        limit = 1000 * self.coursedir.max_file_size
        latest = 0.0
        for folder, folders, files in os.walk(src):  # never follows links
            relative = os.path.relpath(folder, src)
            os.makedirs(os.path.join(dest, relative), exist_ok=True)
            latest = max(latest, os.lstat(folder).st_ctime)
            folders[:] = [d for d in folders if not self._ignored(d) and stat.S_ISDIR(os.lstat(os.path.join(folder, d)).st_mode)]
            for name in files:
                path = os.path.join(folder, name)
                info = os.lstat(path)
                latest = max(latest, info.st_ctime)
                if self._ignored(name) or not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                    self.log.warning("not collected: %s (a link, a special file, ignored or too large)", path)
                    continue
                source = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(source, "rb") as reader, open(os.path.join(dest, relative, name), "wb") as writer:
                    shutil.copyfileobj(reader, writer)
        self._no_earlier_than(dest, dt.datetime.fromtimestamp(latest, dt.UTC))

    def _ignored(self, name: str) -> bool:
        return any(fnmatch.fnmatch(name, pattern) for pattern in self.coursedir.ignore)

    def _no_earlier_than(self, dest: str, changed: dt.datetime) -> None:
        claimed = self.coursedir.get_existing_timestamp(dest)
        if claimed is not None and claimed.tzinfo is None:
            claimed = claimed.replace(tzinfo=dt.UTC)
        if claimed is None or changed - claimed > SLACK:
            self.log.warning("%s: handed in at %s as the file system records it (it claims %s)", dest,
                             changed.isoformat(), claimed.isoformat() if claimed else "no time")
            with open(os.path.join(dest, "timestamp.txt"), "w") as file:
                file.write(changed.strftime("%Y-%m-%d %H:%M:%S.%f %Z"))
