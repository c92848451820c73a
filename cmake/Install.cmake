# The gpumeter package: `cmake --install` puts the headers, the static libraries, the
# `gpumeter` command and a CMake package (find_package(gpumeter)) under the prefix. The names
# consumers use (gpumeter::gpumeter, gpumeter::core, ..., gpumeter::gpumeter_cli) exist as
# ALIAS targets in the build tree too, so add_subdirectory/FetchContent consumers write the
# same names. Install rules only when GPUMETER_INSTALL (top-level builds by default).
#
# Kept in this one file, on the targets the src/ directories define, so those files stay
# about building; install(TARGETS) of another directory's targets works since CMake 3.13.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Target name -> exported name (gpumeter::<name>).
set(_gpumeter_libraries
  gpumeter_core core
  gpumeter_host host
  gpumeter_system system
  gpumeter_record record
  gpumeter_report report
  gpumeter_runner runner
  gpumeter_session session
  gpumeter_benchmark benchmark)
if(GPUMETER_HAVE_CUDA)
  list(APPEND _gpumeter_libraries gpumeter_cuda cuda)
endif()

# gpumeter::gpumeter: everything built, one name to link.
add_library(gpumeter_all INTERFACE)
set_target_properties(gpumeter_all PROPERTIES EXPORT_NAME gpumeter)
add_library(gpumeter::gpumeter ALIAS gpumeter_all)
set(_gpumeter_exported gpumeter_all)

set(_gpumeter_source_include ${PROJECT_SOURCE_DIR}/include)
# Header-only helpers our libraries link PRIVATE. A static library exports PRIVATE deps as
# $<LINK_ONLY:...>, which would make every consumer find these packages (or, where they were
# header-only fallbacks, name targets that exist nowhere) although no installed header
# includes them. So they stay in the build interface only, and the install interface keeps
# just what must reach the linker: the libraries behind them (fmt::fmt when fmt is the
# compiled package; nothing for nlohmann_json or header-only fmt).
set(_gpumeter_header_only_private gpumeter_fmt nlohmann_json::nlohmann_json CLI11::CLI11)

list(LENGTH _gpumeter_libraries _n)
math(EXPR _last "${_n} - 1")
foreach(_i RANGE 0 ${_last} 2)
  math(EXPR _j "${_i} + 1")
  list(GET _gpumeter_libraries ${_i} _target)
  list(GET _gpumeter_libraries ${_j} _name)
  set_target_properties(${_target} PROPERTIES EXPORT_NAME ${_name})
  add_library(gpumeter::${_name} ALIAS ${_target})
  target_link_libraries(gpumeter_all INTERFACE ${_target})
  list(APPEND _gpumeter_exported ${_target})

  # src/core says `PUBLIC ${PROJECT_SOURCE_DIR}/include`, an absolute source path that an
  # export refuses. Rewritten here (src/ files stay untouched): the source tree while
  # building, <prefix>/include once installed.
  get_target_property(_dirs ${_target} INTERFACE_INCLUDE_DIRECTORIES)
  if(_dirs)
    set(_new_dirs "")
    foreach(_dir IN LISTS _dirs)
      if(_dir STREQUAL _gpumeter_source_include)
        list(APPEND _new_dirs "$<BUILD_INTERFACE:${_dir}>"
          "$<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>")
      else()
        list(APPEND _new_dirs "${_dir}")
      endif()
    endforeach()
    set_property(TARGET ${_target} PROPERTY INTERFACE_INCLUDE_DIRECTORIES "${_new_dirs}")
  endif()

  get_target_property(_links ${_target} INTERFACE_LINK_LIBRARIES)
  if(_links)
    set(_new_links "")
    foreach(_link IN LISTS _links)
      set(_kept "${_link}")
      foreach(_helper IN LISTS _gpumeter_header_only_private)
        if(_link STREQUAL "$<LINK_ONLY:${_helper}>")
          set(_kept "$<BUILD_INTERFACE:${_link}>")
          get_target_property(_behind ${_helper} INTERFACE_LINK_LIBRARIES)
          foreach(_lib IN LISTS _behind)
            if(_lib)
              list(APPEND _kept "$<LINK_ONLY:$<INSTALL_INTERFACE:${_lib}>>")
            endif()
          endforeach()
        endif()
      endforeach()
      list(APPEND _new_links ${_kept})
    endforeach()
    set_property(TARGET ${_target} PROPERTY INTERFACE_LINK_LIBRARIES "${_new_links}")
  endif()
endforeach()

# The command, so consumers (and tests) find the installed `gpumeter` by target.
set_target_properties(gpumeter PROPERTIES EXPORT_NAME gpumeter_cli)
add_executable(gpumeter::gpumeter_cli ALIAS gpumeter)
list(APPEND _gpumeter_exported gpumeter)

if(GPUMETER_INSTALL)
  set(_gpumeter_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/gpumeter)

  install(TARGETS ${_gpumeter_exported} EXPORT gpumeterTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # Every public header: none includes CUDA, CUPTI or a third-party header (the package's
  # consumer needs only these and the standard library). The CUDA backend's header only when
  # its library is installed too: declarations without a library would fail at link time.
  set(_gpumeter_header_excludes "")
  if(NOT GPUMETER_HAVE_CUDA)
    set(_gpumeter_header_excludes PATTERN "cuda.hpp" EXCLUDE)
  endif()
  install(DIRECTORY ${_gpumeter_source_include}/gpumeter
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
    FILES_MATCHING PATTERN "*.hpp" ${_gpumeter_header_excludes})
  install(EXPORT gpumeterTargets
    NAMESPACE gpumeter::
    FILE gpumeterTargets.cmake
    DESTINATION ${_gpumeter_package_dir})

  # What the exported link interfaces name: fmt::fmt (a compiled library) when fmt came
  # from its package; CUDA::cudart when the CUDA backend was built. dl is
  # a plain library name (CMAKE_DL_LIBS); nlohmann_json and header-only fmt are not named.
  set(_deps "")
  get_target_property(_fmt_links gpumeter_fmt INTERFACE_LINK_LIBRARIES)
  if("fmt::fmt" IN_LIST _fmt_links)
    list(APPEND _deps "find_dependency(fmt)")
  endif()
  if(GPUMETER_HAVE_CUDA)
    list(APPEND _deps "find_dependency(CUDAToolkit)")
  endif()
  list(JOIN _deps "\n" GPUMETER_PACKAGE_DEPENDENCIES)
  file(CONFIGURE OUTPUT ${PROJECT_BINARY_DIR}/gpumeterConfig.cmake @ONLY CONTENT [=[
# gpumeter @PROJECT_VERSION@: find_package(gpumeter) gives gpumeter::gpumeter (every library
# built), gpumeter::core, host, system, record, report, runner, benchmark (benchmark programs:
# GPUMETER_BENCHMARK, GPUMETER_MAIN), gpumeter::cuda when
# gpumeter_HAVE_CUDA, and the command as gpumeter::gpumeter_cli.
include(CMakeFindDependencyMacro)
@GPUMETER_PACKAGE_DEPENDENCIES@
include("${CMAKE_CURRENT_LIST_DIR}/gpumeterTargets.cmake")
set(gpumeter_HAVE_CUDA @GPUMETER_HAVE_CUDA@)
]=])
  # 0.x: a minor version may break the API, so only the same minor is compatible until 1.0.
  if(PROJECT_VERSION_MAJOR EQUAL 0)
    set(_gpumeter_compat SameMinorVersion)
  else()
    set(_gpumeter_compat SameMajorVersion)
  endif()
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpumeterConfigVersion.cmake
    VERSION ${PROJECT_VERSION}
    COMPATIBILITY ${_gpumeter_compat})
  install(FILES
    ${PROJECT_BINARY_DIR}/gpumeterConfig.cmake
    ${PROJECT_BINARY_DIR}/gpumeterConfigVersion.cmake
    DESTINATION ${_gpumeter_package_dir})
endif()
