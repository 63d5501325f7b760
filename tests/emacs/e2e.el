;;; e2e.el --- sycl-analyzer under Emacs's eglot, in batch mode  -*- lexical-binding: t -*-
;;
;; Run by tests/emacs.rs: emacs --batch --no-init-file -l e2e.el (site files load, as for a user), with the server on PATH and
;; SYCL_FIXTURE (a source in a git repository), SYCL_EDITORS_README (editors/README.md, whose
;; eglot setup is evaluated as written).  Prints RESULT lines the Rust test reads; exits 1 with what was seen on a failure.

(require 'package)
(package-initialize)                    ; Debian's elpa-eglot lives in the system package dirs
(require 'eglot)
(require 'flymake)

(defun e2e-fail (fmt &rest args)
  (princ (format "FAIL %s\n" (apply #'format fmt args)))
  (let ((events (and (eglot-current-server) (jsonrpc-events-buffer (eglot-current-server)))))
    (when events
      (with-current-buffer events
        (princ (format "EVENTS (tail):\n%s\n"
                       (buffer-substring-no-properties (max (point-min) (- (point-max) 4000)) (point-max)))))))
  (kill-emacs 1))

(defun e2e-wait (what pred seconds)
  "Poll PRED, processing the server's output, until it is non-nil; fail after SECONDS."
  (let ((deadline (+ (float-time) seconds)) v)
    (while (and (not (setq v (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.1))
    (or v (e2e-fail "timed out waiting for %s" what))))

;; The setup editors/README.md documents, read from there: the first elisp block after the eglot
;; heading.  The server is found on PATH (exec-path), as for a user.
(with-temp-buffer
  (insert-file-contents (getenv "SYCL_EDITORS_README"))
  (unless (and (search-forward "## Emacs: eglot" nil t)
               (search-forward "```elisp\n" nil t))
    (e2e-fail "no eglot setup in %s" (getenv "SYCL_EDITORS_README")))
  (let ((start (point)))
    (search-forward "```")
    (let ((setup (buffer-substring-no-properties start (match-beginning 0))))
      (princ (format "RESULT setup %d chars\n" (length setup)))
      (eval (car (read-from-string (concat "(progn " setup ")"))) t))))

(find-file (getenv "SYCL_FIXTURE"))
(princ (format "RESULT mode %s\n" major-mode))
;; eglot-ensure connects from post-command-hook, which batch mode never runs.
(run-hooks 'post-command-hook)
(e2e-wait "the connection" (lambda () (eglot-current-server)) 30)
(princ (format "RESULT server %s\n" (plist-get (eglot--server-info (eglot-current-server)) :name)))

(let ((diag (e2e-wait "the aspect-mismatch diagnostic through flymake"
                      (lambda ()
                        (seq-find (lambda (d) (string-match-p "not listed in its 'sycl::device_has'"
                                                              (flymake-diagnostic-text d)))
                                  (flymake-diagnostics)))
                      60)))
  (princ (format "RESULT diagnostic %s line %d type %s\n"
                 (flymake-diagnostic-text diag)
                 (line-number-at-pos (flymake-diagnostic-beg diag))
                 (flymake-diagnostic-type diag))))

;; Hover the aspect in the kernel's device_has.
(goto-char (point-min))
(search-forward "aspect::fp16")
(backward-char 2)
(let* ((hover (jsonrpc-request (eglot-current-server) :textDocument/hover
                              (eglot--TextDocumentPositionParams)))
       (text (and hover (eglot--hover-info (plist-get hover :contents)))))
  (unless text (e2e-fail "no hover on fp16"))
  (princ (format "RESULT hover %s\n" (replace-regexp-in-string "\n" " " text))))

(eglot-shutdown (eglot-current-server))
(princ "RESULT done\n")
(kill-emacs 0)
