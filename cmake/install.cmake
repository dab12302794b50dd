# `cmake --install` puts headers, the libraries, the CLI and a package config
# in place, so another project can find_package(heddle) and link heddle::heddle.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS heddle heddle_main EXPORT heddle-targets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS heddle_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/heddle DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT heddle-targets NAMESPACE heddle:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heddle)
configure_package_config_file(cmake/heddle-config.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/heddle-config.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heddle)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/heddle-config-version.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/heddle-config.cmake ${CMAKE_CURRENT_BINARY_DIR}/heddle-config-version.cmake
              ${PROJECT_SOURCE_DIR}/cmake/HeddleInstrument.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/heddle)
