# scripts/lib-realsite.sh: what scripts/bench-realsite and
# scripts/bench-realfresh share, sourced by both: Debian's MediaWiki
# installed, a generated wiki built into WORK/wiki, and an apache of its
# own for each run on 127.0.0.1.
#
# The sourcing script sets: prog (its name, for messages), tree (the
# checkout), work (the work dir), articles (the wiki's size), helper
# (scripts/bench-realsite.py, which writes the wiki's dump) and, if the
# wiki needs more settings, extra_settings (PHP lines for bench.php). It
# gets: die, say, install_packages, free_port, write_settings PORT, mwphp,
# setup_wiki, restore_wiki, apache_conf DIR PORT, launch_apache DIR,
# start_server NAME (sets port and server_pid) and stop_server, which it
# should trap on EXIT.

mw=/usr/share/mediawiki
packages="mediawiki apache2 libapache2-mod-php php-sqlite3 php-apcu php-intl php-mbstring php-xml wget"

die() {
	echo "$prog: error: $1" >&2
	[ -n "${2:-}" ] && echo "$prog: hint: $2" >&2
	exit 1
}
say() { echo "$prog: $*" >&2; }

# The apache this script started (its pid), stopped on exit whatever
# happens. Apache signals its whole process group when it stops, so it
# runs in a session of its own (setsid), away from this script's group.
server_pid=""
stop_server() {
	[ -n "$server_pid" ] || return 0
	kill -TERM "$server_pid" 2>/dev/null || true
	local _ state
	for _ in $(seq 300); do # apache stops its children first: up to 30 s
		state=$(cut -d' ' -f3 "/proc/$server_pid/stat" 2>/dev/null || true)
		[ -z "$state" ] || [ "$state" = Z ] && break
		sleep 0.1
	done
	kill -KILL "$server_pid" 2>/dev/null || true
	wait "$server_pid" 2>/dev/null || true
	server_pid=""
}

install_packages() {
	local missing="" p
	for p in $packages; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return
	say "installing$missing"
	# Packages start their services on install where an init system runs;
	# apache would then listen on every address. policy-rc.d forbids it for
	# the length of the install.
	local policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		printf '#!/bin/sh\nexit 101\n' >"$policy"
		chmod 755 "$policy"
	fi
	local rc=0
	# shellcheck disable=SC2086 # missing is a list of package names
	{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing; } \
		>"$work/apt.log" 2>&1 || rc=$?
	[ -n "$policy" ] && rm -f "$policy"
	[ "$rc" = 0 ] || { tail -20 "$work/apt.log" >&2; die "apt-get install$missing failed (log: $work/apt.log)"; }
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# write_settings PORT: the settings that depend on the run (the address)
# and the ones the benchmark needs, included by LocalSettings.php.
write_settings() {
	local w="$work/wiki"
	cat >"$w/conf/bench.php.tmp" <<EOF
<?php
// Written by scripts/$prog at every run.
\$wgServer = "http://127.0.0.1:$1";
\$wgCanonicalServer = \$wgServer;
\$wgScriptPath = "/w";
\$wgArticlePath = "/wiki/\$1";
\$wgUsePathInfo = true;
\$wgUploadDirectory = "$w/images";
\$wgUploadPath = "/w/images";
\$wgEnableUploads = true;
\$wgUseImageMagick = false;
\$wgMainCacheType = CACHE_ACCEL;
\$wgParserCacheType = CACHE_ACCEL;
\$wgSessionCacheType = CACHE_ACCEL;
\$wgJobRunRate = 0;
\$wgShowExceptionDetails = true;
${extra_settings:-}
EOF
	mv "$w/conf/bench.php.tmp" "$w/conf/bench.php"
}

# mwphp SCRIPT ARGS...: runs a maintenance script on the bench wiki as
# www-data, which owns its database.
mwphp() {
	local script=$1
	shift
	runuser -u www-data -- env MW_CONFIG_FILE="$work/wiki/conf/LocalSettings.php" \
		php "$mw/maintenance/$script" "$@"
}

setup_wiki() {
	local w="$work/wiki" stamp="$work/wiki/ready"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "articles=$articles" ]; then
		say "wiki of $articles articles already in $w"
		return
	fi
	say "building a wiki of $articles articles in $w"
	rm -rf "$w"
	mkdir -p "$w/conf" "$w/data" "$w/images" "$w/dump"
	python3 "$helper" dump "$articles" "$w/dump"
	chown -R www-data:www-data "$w"
	runuser -u www-data -- php "$mw/maintenance/install.php" --dbtype sqlite --dbpath "$w/data" \
		--dbname benchwiki --server http://127.0.0.1 --scriptpath /w --confpath "$w/conf" \
		--lang en --pass bench-realsite-admin --skins Vector "Bench Wiki" Admin >"$w/install.log" 2>&1 ||
		{ tail -20 "$w/install.log" >&2; die "MediaWiki's install.php failed (log: $w/install.log)"; }
	echo 'require __DIR__ . "/bench.php";' >>"$w/conf/LocalSettings.php"
	write_settings 80
	chown -R www-data:www-data "$w"
	# The jobs the import queued are left: refreshLinks.php does their
	# work, and $wgJobRunRate = 0 keeps page views from running them.
	local step
	for step in "importDump.php --quiet $w/dump/pages.xml" \
		"importImages.php --quiet --user Admin $w/dump/images" \
		"edit.php --summary Bench --user Admin Main_Page" \
		"refreshLinks.php" "initSiteStats.php --update" "rebuildrecentchanges.php"; do
		say "maintenance/${step%% *}"
		# shellcheck disable=SC2086 # step is a command line
		mwphp $step <"$w/dump/main-page.wikitext" >>"$w/import.log" 2>&1 ||
			{ tail -20 "$w/import.log" >&2; die "maintenance/${step%% *} failed (log: $w/import.log)"; }
	done
	echo "articles=$articles" >"$stamp"
	cp -a "$w/data" "$w/pristine" # for restore_wiki
	echo "articles=$articles" >"$w/pristine/ready"
}

# restore_wiki: the wiki's database as setup_wiki built it, which it kept in
# WORK/wiki/pristine (taken now if a wiki built before has none):
# bench-realfresh edits the wiki, and each run of either script starts
# from the wiki as built.
restore_wiki() {
	local w="$work/wiki"
	if [ ! -f "$w/pristine/ready" ] || [ "$(cat "$w/pristine/ready")" != "$(cat "$w/ready")" ]; then
		rm -rf "$w/pristine"
		cp -a "$w/data" "$w/pristine"
		cat "$w/ready" >"$w/pristine/ready"
	fi
	rm -rf "$w/data"
	cp -a "$w/pristine" "$w/data"
	rm -f "$w/data/ready"
	chown -R www-data:www-data "$w/data"
}

# apache_conf DIR PORT: the settings every apache of these scripts starts
# from: prefork and mod_php as www-data, on 127.0.0.1:PORT only, its pid
# and error log in DIR, nothing served until a site's settings grant it.
apache_conf() {
	cat <<EOF
ServerRoot /etc/apache2
ServerName 127.0.0.1
Listen 127.0.0.1:$2
DefaultRuntimeDir $1
PidFile $1/apache.pid
User www-data
Group www-data
ErrorLog $1/error.log
LogLevel warn
LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
LoadModule alias_module /usr/lib/apache2/modules/mod_alias.so
LoadModule env_module /usr/lib/apache2/modules/mod_env.so
LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so
LoadModule php_module /usr/lib/apache2/modules/libphp8.2.so
StartServers 8
MinSpareServers 8
MaxRequestWorkers 32
TypesConfig /etc/mime.types
<Directory />
	Require all denied
	AllowOverride None
</Directory>
<FilesMatch "\.php$">
	SetHandler application/x-httpd-php
</FilesMatch>
EOF
}

# launch_apache DIR: starts apache on DIR/apache.conf; sets server_pid.
# setsid execs apache (this subshell leads no group), so $! is apache.
launch_apache() {
	setsid apache2 -f "$1/apache.conf" -DFOREGROUND >"$1/stdout.log" 2>&1 &
	server_pid=$!
}

# start_server NAME: apache for one tool's run, its access log in
# WORK/runs/NAME/access.log; sets port and server_pid.
start_server() {
	local run="$work/runs/$1" a="$work/runs/$1/apache"
	rm -rf "$a" "$run/access.log"
	mkdir -p "$a"
	port=$(free_port)
	write_settings "$port"
	{
		apache_conf "$a" "$port"
		cat <<EOF
LogFormat "%h %t \"%r\" %>s %b %D \"%{User-Agent}i\"" bench
CustomLog $run/access.log bench
DocumentRoot $mw
AcceptPathInfo On
Alias /w/images $work/wiki/images
Alias /wiki $mw/index.php
Alias /w $mw
SetEnv MW_CONFIG_FILE $work/wiki/conf/LocalSettings.php
<Directory $mw>
	Require all granted
	DirectoryIndex index.php
</Directory>
<Directory $work/wiki/images>
	Require all granted
	php_admin_flag engine off
</Directory>
EOF
	} >"$a/apache.conf"
	launch_apache "$a"
	local _
	for _ in $(seq 100); do
		if wget -q -O "$a/probe.html" -U bench-realsite-probe "http://127.0.0.1:$port/wiki/Main_Page" 2>/dev/null &&
			grep -q "Welcome to Bench Wiki" "$a/probe.html"; then
			return
		fi
		kill -0 "$server_pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$a/stdout.log" "$a/error.log" 2>/dev/null | tail -20 >&2
	die "the wiki on 127.0.0.1:$port did not answer its Main Page (logs in $a)"
}
