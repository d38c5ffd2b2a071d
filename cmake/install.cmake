# `cmake --install`: the binary, the systemd units (ExecStart naming the installed binary, so
# `kdrift bisect install` and `kdrift history install` enable these instead of writing their
# own; kdrift-metrics.timer is the administrator's to enable), the manual pages and completions tools/docgen.cpp rendered, and the documentation.
include(GNUInstallDirs)

install(TARGETS kdrift RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# systemd reads /usr/lib/systemd/system (and /usr/local/lib/… for a /usr/local install): the
# path the brief's installed layout names; Debian 12 is merged-/usr, so /lib/systemd/system is
# the same directory.
set(KDRIFT_SYSTEMD_UNIT_DIR "lib/systemd/system" CACHE STRING
  "Where the units are installed, relative to the prefix")
file(GLOB kdrift_units CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/dist/systemd/*.service
  ${PROJECT_SOURCE_DIR}/dist/systemd/*.timer)
foreach(unit IN LISTS kdrift_units)
  get_filename_component(name ${unit} NAME)
  file(READ ${unit} text)
  string(REPLACE "@KDRIFT@" "${CMAKE_INSTALL_FULL_BINDIR}/kdrift" text "${text}")
  file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/units/${name} CONTENT "${text}")
  install(FILES ${CMAKE_BINARY_DIR}/units/${name} DESTINATION ${KDRIFT_SYSTEMD_UNIT_DIR})
endforeach()

install(DIRECTORY ${KDRIFT_DOCS_DIR}/man/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
  FILES_MATCHING PATTERN "*.1")
install(FILES ${KDRIFT_DOCS_DIR}/completions/kdrift
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
# Debian's zsh searches vendor-completions for packaged functions (site-functions is for the
# local administrator's, under /usr/local).
set(KDRIFT_ZSH_COMPLETION_DIR "${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions" CACHE STRING
  "Where _kdrift is installed, relative to the prefix")
install(FILES ${KDRIFT_DOCS_DIR}/completions/_kdrift DESTINATION ${KDRIFT_ZSH_COMPLETION_DIR})

install(FILES README.md SECURITY.md ARCHITECTURE.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# docs/man/ is the pages' source, rendered into man1 above.
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs FILES_MATCHING PATTERN "*.md"
  PATTERN "man" EXCLUDE)
# Prometheus's rule_files: can name it where it is installed (outside the documentation, which a
# distribution may compress).
install(FILES dist/prometheus/kdrift.rules.yml DESTINATION ${CMAKE_INSTALL_DATADIR}/kdrift/prometheus)
